import { afterAll, beforeAll, expect, it } from "vitest";
import { anyErrorSchema, bulkResponseSchema } from "../../lib/api/schemas.ts";
import { apiLinkSchema, deleteLinkResponseSchema, listLinksResponseSchema } from "../../lib/links/schemas.ts";
import { call, makeWorkspace, pool, startApiTest, type Answer, type ApiTestEnv, type RequestOptions } from "../support/api.ts";

// A generated run of malformed bodies, headers and query strings (seeded, so a failure repeats):
// no answer may be a 500, every error must be exactly one of the documented error bodies with its status,
// and every success must be the documented shape.

const RUNS = 1200;
const SEED = Number(process.env.FUZZ_SEED ?? 20261122);

let env: ApiTestEnv;
beforeAll(async () => {
  env = await startApiTest();
});
afterAll(async () => {
  await env?.stop();
});

function mulberry32(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const STATUS: Record<string, number> = {
  validation: 400,
  unauthorized: 401,
  feature: 403,
  quota: 403,
  not_found: 404,
  alias_taken: 409,
  ambiguous_code: 409,
  rate_limit: 429,
  server_error: 500,
};

type Case = { method: string; path: string; opts: RequestOptions; expect: "link" | "list" | "bulk" | "delete" | "any" };

function generator(seed: number, keys: { good: string; free: string; link: string }) {
  const r = mulberry32(seed);
  const int = (n: number) => Math.floor(r() * n);
  const pick = <T>(a: readonly T[]): T => a[int(a.length)];
  const chance = (p: number) => r() < p;
  const CHARS = [
    "a",
    "Z",
    "0",
    "-",
    "_",
    " ",
    "/",
    "\\",
    '"',
    "'",
    "%",
    "?",
    "#",
    "&",
    "=",
    "+",
    ".",
    "\u0000",
    "\u001f",
    "é",
    "字",
    "😀",
    "\u202e",
    "\ud800",
    "<",
    ">",
    "{",
    "}",
  ];
  const str = (max = 20) => Array.from({ length: int(max + 1) }, () => pick(CHARS)).join("");
  const weirdNumber = () => pick([0, -1, 1.5, 1e308, -1e308, 2 ** 31, 2 ** 53 + 2, Number.MAX_SAFE_INTEGER, 253_402_300_800, -0.0001]);
  const value = (depth = 0): unknown => {
    const kinds = depth > 3 ? 5 : 7;
    switch (int(kinds)) {
      case 0:
        return null;
      case 1:
        return chance(0.5);
      case 2:
        return weirdNumber();
      case 3:
        return str(30);
      case 4:
        return "x".repeat(int(5000));
      case 5:
        return Array.from({ length: int(4) }, () => value(depth + 1));
      default:
        return Object.fromEntries(Array.from({ length: int(4) }, () => [str(8), value(depth + 1)]));
    }
  };
  const urls = [
    "https://example.com/a",
    "http://",
    "https://",
    "//example.com",
    " ",
    "http://[::1",
    "https://exa mple.com",
    "https://example.com:99999",
    "mailto:a@b.c",
    "data:text/html,hi",
    "javascript:void(0)",
    "https://blocked.example",
    "http://localhost:3000/x",
    "x".repeat(3000),
    "https://例え.jp/",
    "HTTPS://EXAMPLE.COM",
  ];
  const FIELDS = [
    "url",
    "alias",
    "domain",
    "expiresOn",
    "startsOn",
    "maxClicks",
    "fallbackUrl",
    "password",
    "title",
    "notes",
    "folder",
    "active",
    "targeting",
    "forwardQuery",
    "forwardPath",
    "variants",
    "rules",
    "preview",
  ];
  const createBody = (): unknown => {
    const body: Record<string, unknown> = { url: chance(0.6) ? `https://example.com/${int(1e6)}` : pick(urls) };
    for (let i = int(4); i > 0; i--) {
      const f = pick(FIELDS);
      body[f] = chance(0.5)
        ? value()
        : f === "alias"
          ? pick(["a".repeat(41), "", "ok_alias", "api", "a b", "ä", str(10)])
          : f === "domain"
            ? pick(["localhost:3000", "LOCALHOST:3000.", "nope.test", "", str(10)])
            : f === "targeting"
              ? pick([
                  { geo: { us: "https://a.b" } },
                  { ios: 5 },
                  { geo: { DE: "nope" } },
                  { android: "https://example.com" },
                  { extra: 1 },
                  [],
                ])
              : f === "rules"
                ? pick([
                    [{ url: "https://a.b", hours: [5, 2] }],
                    [{ url: "https://a.b", timeZone: str(8), days: [7] }],
                    [{ url: "https://a.b", query: { [str(3) || "q"]: value() } }],
                    [{ url: "https://a.b", after: weirdNumber(), before: weirdNumber() }],
                    [{ url: str(5), languages: [str(3)] }],
                  ])
                : f === "variants"
                  ? [
                      { url: "https://a.b", weight: weirdNumber() },
                      { url: pick(urls), weight: 50 },
                    ]
                  : f.endsWith("On")
                    ? weirdNumber()
                    : value();
    }
    if (chance(0.15)) delete body.url;
    if (chance(0.15)) body[str(6) || "k"] = value();
    if (chance(0.05)) return value();
    return body;
  };
  const rawBody = (json: unknown): string | Buffer => {
    const text = JSON.stringify(json) ?? "null";
    switch (int(12)) {
      case 0:
        return text.slice(0, int(text.length));
      case 1:
        return text + pick(["}", "]", ",", " garbage", "\u0000"]);
      case 2:
        return "\ufeff" + text;
      case 3:
        return "[".repeat(20_000) + "]".repeat(20_000);
      case 4:
        return `{"url":"https://example.com","url":${JSON.stringify(str(5))}}`;
      case 5:
        return Buffer.from(Array.from({ length: int(200) }, () => int(256)));
      case 6:
        return `{"url": NaN}`;
      case 7:
        return `{'url': 'https://example.com'}`;
      case 8:
        return JSON.stringify({ url: "https://example.com", notes: "n".repeat(70_000) });
      default:
        return text;
    }
  };
  const contentType = (): string | null | undefined =>
    chance(0.8)
      ? undefined
      : pick([
          null,
          "text/plain",
          "application/json; charset=utf-16",
          "application/jsonx",
          "",
          "APPLICATION/JSON",
          "multipart/form-data; boundary=x",
          "application/x-www-form-urlencoded",
        ]);
  const auth = (): Partial<RequestOptions> => {
    if (chance(0.9)) return { key: keys.good };
    return pick<Partial<RequestOptions>>([
      { key: keys.free },
      { authorization: "" },
      { authorization: "Bearer " + str(10).replace(/[^\x21-\x7e]/g, "x") },
      { authorization: `Basic ${keys.good}` },
      { authorization: `Bearer ${keys.good}x` },
      { authorization: `Bearer  ${keys.good} extra` },
      { authorization: "lh_" + "0".repeat(40) },
    ]);
  };
  // A lone surrogate has no UTF-8 form: send the bytes of its (invalid) three-byte encoding.
  const pathText = (s: string) =>
    s
      .split(/([\ud800-\udfff])/)
      .map((p) => (/^[\ud800-\udfff]$/.test(p) ? "%ED%A0%80" : encodeURIComponent(p)))
      .join("")
      .replace(/'/g, "%27");
  const queryPart = () =>
    pick([
      () => `size=${pick(["0", "1", "100", "101", "-5", "abc", "1e2", "", "%zz", "99999999999999999999"])}`,
      () =>
        `cursor=${pick(["", "abc", "MTIzNDU2Nzg5.MQ", "%00", "A".repeat(500), Buffer.from(`${int(1e12)}.${int(1e6)}`).toString("base64url")])}`,
      () => `domain=${pick(["localhost:3000", "nope.test", "%zz", "", pathText(str(10))])}`,
      () => `q=${pathText(str(30))}`,
      () => `folder=${pick(["a/b", "//", "", pathText(str(10))])}`,
      () => `${pathText(str(5)) || "x"}=${pathText(str(5))}`,
      () => pick(["%", "%zz", "a=%E0%A4%A", "&&&", "=", "size=1&size=2", "q=%00"]),
    ])();
  const query = () => (chance(0.5) ? "" : "?" + Array.from({ length: 1 + int(3) }, queryPart).join("&"));
  const code = () => pick([keys.link, "nope", pathText(str(12)) || "x", "%zz", "a".repeat(300), "..", "bulk", "%2F", "%00"]);

  return (): Case => {
    const kind = int(8);
    const a = auth();
    switch (kind) {
      case 0:
      case 1: {
        const json = createBody();
        const body = chance(0.7) ? (JSON.stringify(json) ?? "null") : rawBody(json);
        return {
          method: "POST",
          path: "/api/v1/links" + (chance(0.2) ? query() : ""),
          opts: { ...a, body, contentType: contentType() },
          expect: "link",
        };
      }
      case 2: {
        const rows = chance(0.1)
          ? Array.from({ length: 1001 }, () => ({ url: "https://example.com" }))
          : Array.from({ length: int(6) }, createBody);
        const json = chance(0.8) ? { links: rows } : value();
        return {
          method: "POST",
          path: "/api/v1/links/bulk",
          opts: { ...a, body: chance(0.8) ? (JSON.stringify(json) ?? "null") : rawBody(json), contentType: contentType() },
          expect: "bulk",
        };
      }
      case 3:
        return {
          method: "GET",
          path: "/api/v1/links" + query(),
          opts: { ...a, headers: chance(0.2) ? { accept: pick(["text/html", "*/*", "application/xml"]) } : {} },
          expect: "list",
        };
      case 4:
        return { method: "GET", path: `/api/v1/links/${code()}${query()}`, opts: a, expect: "link" };
      case 5: {
        const json = chance(0.3) ? { title: str(10) } : createBody();
        return {
          method: "PATCH",
          path: `/api/v1/links/${code()}${query()}`,
          opts: { ...a, body: chance(0.8) ? (JSON.stringify(json) ?? "null") : rawBody(json), contentType: contentType() },
          expect: "link",
        };
      }
      case 6:
        return { method: "DELETE", path: `/api/v1/links/${chance(0.9) ? "nope" + int(100) : code()}${query()}`, opts: a, expect: "delete" };
      default:
        return {
          method: pick(["PUT", "POST", "GET", "PATCH", "DELETE"]),
          path:
            pick(["/api/v1/", "/api/v1/links/a/b", `/api/v1/${pathText(str(8)) || "x"}`, "/api/v1/links/bulk", "/api/v1/links"]) + query(),
          opts: { ...a, ...(chance(0.5) ? { body: rawBody(createBody()), contentType: contentType() } : {}) },
          expect: "any",
        };
    }
  };
}

function check(c: Case, a: Answer) {
  const where = `${c.method} ${c.path} -> ${a.status} ${a.text.slice(0, 300)}`;
  expect(a.status, where).not.toBe(500);
  expect(a.headers["content-type"], where).toMatch(/^application\/json/);
  if (a.status >= 400) {
    const body = anyErrorSchema.parse(a.body);
    expect(STATUS[body.error], where).toBe(a.status);
    if (a.status === 401) expect(a.text).toBe('{"error":"unauthorized"}');
    return;
  }
  if (c.method === "POST" && c.path.startsWith("/api/v1/links/bulk")) bulkResponseSchema.parse(a.body);
  else if (c.method === "GET" && /^\/api\/v1\/links(\?|$)/.test(c.path)) listLinksResponseSchema.parse(a.body);
  else if (c.method === "DELETE") deleteLinkResponseSchema.parse(a.body);
  else apiLinkSchema.parse(a.body);
}

it(`answers ${RUNS} generated malformed requests without a 500, each with a spec-shaped body`, async () => {
  const good = await makeWorkspace("open");
  const free = await makeWorkspace("free");
  const link = await call(env.app, "POST", "/api/v1/links", {
    key: good.key,
    json: { url: "https://example.com/fuzz", alias: "fuzz-target" },
  });
  expect(link.status).toBe(201);
  const next = generator(SEED, { good: good.key!, free: free.key!, link: "fuzz-target" });
  const cases = Array.from({ length: RUNS }, next);
  const statuses = new Map<number, number>();
  const failures: string[] = [];
  const slow: [number, string][] = [];
  await pool(cases, 8, async (c) => {
    const t0 = performance.now();
    const a = await call(env.app, c.method, c.path, c.opts);
    if (process.env.FUZZ_DEBUG)
      slow.push([performance.now() - t0, `${c.method} ${c.path.slice(0, 60)} ${String(c.opts.body ?? "").slice(0, 80)} -> ${a.status}`]);
    statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
    try {
      check(c, a);
    } catch (e) {
      failures.push(
        `${(e as Error).message.split("\n")[0]} :: ${c.method} ${c.path} ${JSON.stringify(c.opts).slice(0, 300)} -> ${a.status} ${a.text.slice(0, 300)}`,
      );
    }
  });
  if (process.env.FUZZ_DEBUG)
    console.log(
      slow
        .sort((x, y) => y[0] - x[0])
        .slice(0, 15)
        .map(([ms, d]) => `${ms.toFixed(0)}ms ${d}`)
        .join("\n"),
    );
  expect(failures.length, `${failures.length} bad answers, first ones:\n${failures.slice(0, 8).join("\n\n")}`).toBe(0);
  // The run exercised the refusals (and did not only hit one kind of answer).
  expect([...statuses.keys()].filter((s) => s >= 400).length).toBeGreaterThanOrEqual(3);
  expect(env.app.logs()).not.toMatch(/server_error/);
}, 120_000);
