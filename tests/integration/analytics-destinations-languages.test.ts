import { parse } from "csv-parse/sync";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ClickEvent, ClickFilters, TopGroup } from "../../lib/analytics/model.ts";
import { PostgresClickStore } from "../../lib/analytics/store/click-store.ts";
import { planQuery } from "../../lib/analytics/store/plan.ts";
import { buildRollupDay } from "../../lib/analytics/store/rollup-build.ts";
import { db } from "../../lib/db/client.ts";
import { client, makeWorkspace, startApiTest, type ApiTestEnv } from "../support/api.ts";

// groupBy=destinations and groupBy=languages over real HTTP, against events stored through the
// click store with known destinations and languages: every answer is written out by hand from
// EVENTS, and each is asked twice, first answered by the raw events alone, then with the four whole
// UTC days of the range built into the rollups (the partial first and last day still raw).

let env: ApiTestEnv;
let pool: pg.Pool;
let w: Awaited<ReturnType<typeof makeWorkspace>>;
let api: ReturnType<typeof client>;
const ids: Record<string, number> = {};
const DAY = 86_400_000;
// 2026-11-09 12:00 .. 2026-11-14 12:00: whole UTC days 10, 11, 12, 13
const START = "2026-11-09T12:00:00Z";
const END = "2026-11-14T12:00:00Z";
const R = `start=${START}&end=${END}`;
const WHOLE_DAYS = ["2026-11-10", "2026-11-11", "2026-11-12", "2026-11-13"].map((d) => Date.parse(d) / DAY);

const A = "https://dest.example/alpha";
const V = "https://variant.example/b?x=1";
const B = "https://dest.example/beta";
/** undefined: the producer left the destination out */
type Ev = [
  at: string,
  link: "alpha" | "beta",
  destination: string | undefined,
  language: string | null,
  country: string,
  bot: boolean,
  visitor: number,
];
const EVENTS: Ev[] = [
  ["2026-11-09T18:00:00Z", "alpha", A, "de", "DE", false, 1], // the raw part before the whole days
  ["2026-11-10T10:00:00Z", "alpha", A, "de", "DE", false, 1],
  ["2026-11-10T11:00:00Z", "alpha", V, "en", "US", false, 2],
  ["2026-11-11T09:00:00Z", "alpha", V, "en", "US", false, 2],
  ["2026-11-11T09:30:00Z", "alpha", V, "de", "DE", false, 3],
  ["2026-11-12T08:00:00Z", "beta", B, null, "US", false, 1],
  ["2026-11-12T08:30:00Z", "beta", B, null, "US", false, 1], // the same visitor on the same day
  ["2026-11-13T07:00:00Z", "beta", undefined, "en", "GB", false, 4],
  ["2026-11-14T06:00:00Z", "alpha", A, "pt", "BR", false, 5], // the raw part after them
  ["2026-11-11T12:00:00Z", "beta", B, "en", "US", true, 6], // a bot
  ["2026-11-13T12:00:00Z", "alpha", A, null, "US", true, 7], // a bot
];

function event(workspaceId: number, e: Ev): ClickEvent {
  const [at, link, destination, language, country, bot, visitor] = e;
  return {
    at: Date.parse(at),
    workspaceId,
    linkId: ids[link],
    domain: "localhost:3000",
    target: "destination",
    country,
    city: null,
    referrerHost: null,
    referrerUrl: null,
    device: bot ? "other" : "desktop",
    browser: null,
    os: null,
    bot,
    qr: false,
    // visitor keys change every UTC day (ingest/visitor.ts): the same person is another key the next day
    visitor: String(Math.floor(Date.parse(at) / DAY) * 1000 + visitor),
    ...(destination === undefined ? {} : { destination }),
    language,
  };
}

beforeAll(async () => {
  env = await startApiTest();
  pool = new pg.Pool({ connectionString: env.databaseUrl, max: 2 });
  w = await makeWorkspace("team");
  api = client(env.app, w.key);
  for (const [code, folder] of [
    ["alpha", "mkt"],
    ["beta", "other"],
  ]) {
    const data = { workspaceId: w.workspace.id, code, url: `https://dest.example/${code}`, folder, domainKey: 0 };
    ids[code] = (await db().link.create({ data })).id;
  }
  await new PostgresClickStore(pool).record(EVENTS.map((e) => event(w.workspace.id, e)));
}, 120_000);

afterAll(async () => {
  await pool?.end();
  await env?.stop();
});

/** [key, clicks, visitors] of each row of a top-N answer. */
async function rows(group: TopGroup, query = ""): Promise<[unknown, number, number][]> {
  const r = await api.get(`/api/v1/analytics?groupBy=${group}&${R}${query ? `&${query}` : ""}`);
  expect(r.status, r.text).toBe(200);
  const key = group === "destinations" ? "destination" : "language";
  return (r.body.data as Record<string, unknown>[]).map((d) => [d[key], d.clicks as number, d.visitors as number]);
}

/** The source the store's plan picks for a top-N query of the range (events, day-rollup, link-day-rollup, destination-day-rollup). */
async function source(group: TopGroup, filters: Omit<ClickFilters, "bots"> = {}) {
  const query = {
    workspaceId: w.workspace.id,
    start: new Date(START),
    end: new Date(END),
    filters: { bots: "exclude" as const, ...filters },
  };
  return (await planQuery(pool, { kind: "top", query, group, limit: 10 })).source;
}

// [groupBy, query, expected rows]: most clicks first, then most visitors, then by key (none last)
const CASES: [TopGroup, string, [unknown, number, number][]][] = [
  // visitors are distinct per UTC day, summed: A is v1 (9th), v1 (10th), v5 (14th)
  [
    "destinations",
    "",
    [
      [A, 3, 3],
      [V, 3, 3],
      [B, 2, 1],
      [null, 1, 1], // recorded without a destination
    ],
  ],
  [
    "languages",
    "",
    [
      ["de", 3, 3],
      ["en", 3, 3],
      ["unknown", 2, 1], // no Accept-Language
      ["pt", 1, 1],
    ],
  ],
  // a dimension filter: languages from the rollups' rows under it, destinations from their own
  [
    "destinations",
    "country=DE",
    [
      [A, 2, 2],
      [V, 1, 1],
    ],
  ],
  [
    "destinations",
    "country=US",
    [
      [V, 2, 2],
      [B, 2, 1], // the same visitor twice on one day
    ],
  ],
  [
    "destinations",
    "referrer=(direct)",
    [
      [A, 3, 3],
      [V, 3, 3],
      [B, 2, 1],
      [null, 1, 1], // recorded without a destination
    ],
  ],
  ["languages", "country=DE", [["de", 3, 3]]],
  // a folder filter and a link filter: the per-link rows
  [
    "destinations",
    "folder=mkt",
    [
      [A, 3, 3],
      [V, 3, 3],
    ],
  ],
  [
    "languages",
    "folder=mkt",
    [
      ["de", 3, 3],
      ["en", 2, 2],
      ["pt", 1, 1],
    ],
  ],
  [
    "destinations",
    "link=beta",
    [
      [B, 2, 1],
      [null, 1, 1],
    ],
  ],
  [
    "languages",
    "link=beta",
    [
      ["unknown", 2, 1],
      ["en", 1, 1],
    ],
  ],
  // bots, as for every group
  [
    "destinations",
    "bots=only",
    [
      [A, 1, 1],
      [B, 1, 1],
    ],
  ],
  [
    "languages",
    "bots=only",
    [
      ["en", 1, 1],
      ["unknown", 1, 1],
    ],
  ],
  [
    "destinations",
    "bots=include",
    [
      [A, 4, 4],
      [V, 3, 3],
      [B, 3, 2],
      [null, 1, 1],
    ],
  ],
  [
    "languages",
    "limit=2",
    [
      ["de", 3, 3],
      ["en", 3, 3],
    ],
  ],
];

describe("groupBy=destinations and groupBy=languages", () => {
  // The app's background job may build the whole days into the rollups at any moment, so which
  // source answers first is not fixed; the answers are, and the next test builds the days itself.
  it("answers every case, from the raw events or from days the app has built", async () => {
    for (const [group, query, expected] of CASES) expect(await rows(group, query), `${group} ${query}`).toEqual(expected);
  });

  it("answers the same with the whole days read from the rollups", async () => {
    for (const day of WHOLE_DAYS) await buildRollupDay(pool, day);
    expect(await source("destinations")).toBe("day-rollup");
    expect(await source("languages")).toBe("day-rollup");
    expect(await source("languages", { country: "DE" })).toBe("day-rollup");
    expect(await source("destinations", { country: "DE" })).toBe("destination-day-rollup");
    expect(await source("destinations", { referrer: "(direct)" })).toBe("destination-day-rollup");
    expect(await source("destinations", { folder: "mkt" })).toBe("link-day-rollup");
    expect(await source("languages", { linkId: ids.beta })).toBe("link-day-rollup");
    for (const [group, query, expected] of CASES) expect(await rows(group, query), `${group} ${query}`).toEqual(expected);
  });

  it("lists both groups among the groupBy values of the OpenAPI document and refuses an unknown one with 400", async () => {
    const doc = await api.get("/api/v1/openapi.json");
    expect(doc.status).toBe(200);
    const groupBy = (doc.body.paths["/analytics"].get.parameters as { name: string; schema: { enum?: string[] } }[]).find(
      (p) => p.name === "groupBy",
    );
    expect(groupBy?.schema.enum).toEqual(expect.arrayContaining(["destinations", "languages"]));
    const r = await api.get(`/api/v1/analytics?groupBy=destination&${R}`);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("validation");
  });
});

describe("export", () => {
  it("has the columns destination and language, empty when not recorded", async () => {
    const r = await api.get(`/api/v1/analytics/export?${R}`);
    expect(r.status).toBe(200);
    const csv: Record<string, string>[] = parse(r.text, { columns: true });
    expect(Object.keys(csv[0]).slice(-2)).toEqual(["destination", "language"]);
    expect(csv.map((x) => [x.time, x.destination, x.language])).toEqual(
      EVENTS.filter((e) => !e[5])
        .sort((x, y) => x[0].localeCompare(y[0]))
        .map(([at, , destination, language]) => [new Date(at).toISOString(), destination ?? "", language ?? ""]),
    );
  });
});
