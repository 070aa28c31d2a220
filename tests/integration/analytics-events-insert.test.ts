import pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";
import { REFERRER_URL_MAX } from "../../lib/analytics/ingest/enrich.ts";
import type { ClickEvent } from "../../lib/analytics/model.ts";
import { insertClickEvents } from "../../lib/analytics/store/events-insert.ts";
import { ensureMonthPartition, monthOf } from "../../lib/analytics/store/partitions.ts";
import { createTestDatabase } from "../support/db.ts";

// insertClickEvents sends a batch as binary arrays (one per column). Every field must be stored
// exactly as an ordinary text-parameter INSERT of the same event stores it: nulls, quotes,
// backslashes, separators of the text array syntax, non-ASCII text, the longest referrer kept, the
// ends of the 64-bit visitor range and millisecond times.

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;

beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
});

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

const COLUMNS = `extract(epoch from at) * 1000 as at, workspace_id, link_id, domain, target, country, city, referrer_host,
                 referrer_url, device, browser, os, bot, qr, visitor::text as visitor, destination, language`;

/** The reference: one plain INSERT per event, every value a text parameter. */
async function insertOneByOne(events: ClickEvent[]) {
  for (const e of events) {
    await pool.query(
      `insert into analytics.click_event
         (at, workspace_id, link_id, domain, target, country, city, referrer_host, referrer_url, device, browser, os, bot, qr, visitor,
          destination, language)
       values (to_timestamp($1::float8 / 1000.0), $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15::int8, $16, $17)`,
      [
        e.at,
        e.workspaceId,
        e.linkId,
        e.domain,
        e.target,
        e.country,
        e.city,
        e.referrerHost,
        e.referrerUrl,
        e.device,
        e.browser,
        e.os,
        e.bot,
        e.qr,
        e.visitor,
        e.destination ?? null,
        e.language ?? null,
      ],
    );
  }
}

async function storedRows(workspaceId: number) {
  const { rows } = await pool.query(`select ${COLUMNS} from analytics.click_event where workspace_id = $1 order by at, link_id, visitor`, [
    workspaceId,
  ]);
  return rows.map((r) => ({ ...r, at: Number(r.at), workspace_id: undefined }));
}

const awkward = [
  'quote " inside',
  'back\\slash and \\" both',
  "{braces,commas}",
  "NULL",
  "",
  "  spaced  ",
  "Linköping",
  "東京 😀",
  "tab\tand\nnewline",
];

function sampleEvents(workspaceId: number, base: number): ClickEvent[] {
  const longUrl = ("https://r.test/" + "ä".repeat(600)).slice(0, REFERRER_URL_MAX);
  const visitors = ["-9223372036854775808", "9223372036854775807", "0", "-1", "1234567890123456789"];
  return Array.from({ length: 40 }, (_, i) => ({
    at: base + i * 1001 + (i % 3),
    workspaceId,
    linkId: 1 + (i % 4),
    domain: i % 5 === 0 ? "go.example.test" : "short.test",
    target: (["destination", "ios", "android", "geo"] as const)[i % 4],
    country: i % 3 === 0 ? null : i % 3 === 1 ? "GB" : "SE",
    city: i % 4 === 0 ? null : awkward[i % awkward.length],
    referrerHost: i % 2 ? null : awkward[(i + 3) % awkward.length],
    referrerUrl: i % 2 ? null : i % 4 === 0 ? longUrl : `https://r.test/${awkward[i % awkward.length]}`,
    device: (["desktop", "mobile", "tablet", "other"] as const)[i % 4],
    browser: i % 6 === 0 ? null : awkward[(i + 1) % awkward.length],
    os: i % 7 === 0 ? null : "Windows",
    bot: i % 2 === 0,
    qr: i % 3 === 0,
    visitor: visitors[i % visitors.length],
    // absent (a producer that does not fill it), null, and URLs with awkward characters
    ...(i % 5 === 4 ? {} : { destination: i % 5 === 3 ? null : `https://d.test/${awkward[(i + 2) % awkward.length]}?q="a,b"` }),
    language: i % 3 === 0 ? null : (["de", "en", "pt"] as const)[i % 3],
  }));
}

test("a batch is stored field for field as plain text-parameter inserts store it", async () => {
  const base = Date.UTC(2026, 10, 30, 23, 59, 40, 123); // the batch crosses into December
  for (const m of [monthOf(base), monthOf(base + 60_000)]) await ensureMonthPartition(pool, m);

  const batch = sampleEvents(101, base);
  expect(await insertClickEvents(pool, batch)).toBe(batch.length);
  await insertOneByOne(sampleEvents(102, base));

  const binary = await storedRows(101);
  const reference = await storedRows(102);
  expect(binary).toHaveLength(batch.length);
  expect(binary).toEqual(reference);
  // and the values are the event's own (not merely equal to the reference)
  const first = binary.find((r) => r.referrer_url?.length === REFERRER_URL_MAX);
  expect(first?.referrer_url).toBe(batch[0].referrerUrl);
  expect(binary.map((r) => r.visitor).slice(0, 5)).toEqual(batch.slice(0, 5).map((e) => e.visitor));
  expect(binary[0].at).toBe(batch[0].at);
  expect(new Set(binary.map((r) => r.city))).toEqual(new Set(batch.map((e) => e.city)));
  expect(binary.map((r) => r.destination)).toEqual(batch.map((e) => e.destination ?? null));
  expect(binary.map((r) => r.language)).toEqual(batch.map((e) => e.language ?? null));
});

test("an empty batch inserts nothing; a large one inserts every row", async () => {
  expect(await insertClickEvents(pool, [])).toBe(0);
  const base = Date.UTC(2026, 10, 15, 12);
  await ensureMonthPartition(pool, monthOf(base));
  const batch = Array.from({ length: 20_000 }, (_, i) => ({ ...sampleEvents(103, base)[i % 40], at: base + i }));
  expect(await insertClickEvents(pool, batch)).toBe(batch.length);
  const { rows } = await pool.query(
    `select count(*)::int as n, count(distinct at)::int as times from analytics.click_event where workspace_id = 103`,
  );
  expect(rows[0]).toEqual({ n: 20_000, times: 20_000 });
});

test("a value its column cannot hold fails the whole batch, as a text insert would, and stores nothing", async () => {
  const base = Date.UTC(2026, 10, 16, 12);
  await ensureMonthPartition(pool, monthOf(base));
  const ok = sampleEvents(104, base).slice(0, 3);
  await expect(insertClickEvents(pool, [...ok, { ...ok[0], linkId: 2 ** 31 }])).rejects.toThrow();
  await expect(insertClickEvents(pool, [...ok, { ...ok[0], linkId: 1.5 }])).rejects.toThrow();
  await expect(insertClickEvents(pool, [...ok, { ...ok[0], visitor: "9223372036854775808" }])).rejects.toThrow();
  const { rows } = await pool.query(`select count(*)::int as n from analytics.click_event where workspace_id = 104`);
  expect(rows[0].n).toBe(0);
});

test("a language is stored as its primary subtag in lower case, anything else as null", async () => {
  const base = Date.UTC(2026, 10, 17, 12);
  await ensureMonthPartition(pool, monthOf(base));
  const given = ["DE", "en-US", "zh_Hant", "", "x", "abcdefghi", "1a", "de ch", "<script>", null];
  const batch = given.map((language, i) => ({ ...sampleEvents(105, base)[0], at: base + i, language }));
  expect(await insertClickEvents(pool, batch)).toBe(batch.length);
  const { rows } = await pool.query(`select language from analytics.click_event where workspace_id = 105 order by at`);
  expect(rows.map((r) => r.language)).toEqual(["de", "en", "zh", null, null, null, null, null, null, null]);
});
