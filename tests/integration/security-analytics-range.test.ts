import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../lib/db/client.ts";
import { createUser } from "../../lib/auth/users.ts";
import { client, makeWorkspace, startApiTest, TEST_SHORT_DOMAIN, type ApiTestEnv } from "../support/api.ts";
import { signInCookie } from "../support/session.ts";

// One analytics request must not block the process: a range far in the future (end=99999999999,
// year 2500, 2200 on the page) once made a day bucket for every day up to it, each formatted with a
// new Intl.DateTimeFormat, and took the event loop for seconds to minutes (a redirect waited 9.6 s).
// Now the end is cut to a day from now (as the start is cut to the plan's retention) and an hourly
// series covers at most 31 days. Everything here is real HTTP against the built app.

let env: ApiTestEnv;
const DAY = 86_400_000;
/**
 * Generous bounds that only a blocked or runaway request misses. The report that runs beside the
 * redirects asks up to the year 5138 (end=99999999999): building a bucket per day up to the end
 * again would block for over a million days' worth of buckets, far past these.
 */
const QUICK_MS = 5_000;
const REDIRECT_MS = 5_000;

beforeAll(async () => {
  env = await startApiTest();
}, 120_000);

afterAll(async () => {
  await env?.stop();
});

type Timed = { status: number; body: any; text: string; ms: number }; // eslint-disable-line @typescript-eslint/no-explicit-any

/** GET with a deadline: rejects when no whole answer came within `timeoutMs` (the request is aborted). */
function timedGet(path: string, headers: Record<string, string>, timeoutMs: number): Promise<Timed> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.get({ host: "127.0.0.1", port: env.app.port, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (d: Buffer) => chunks.push(d));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode!, body, text, ms: performance.now() - started });
      });
    });
    req.setTimeout(timeoutMs, () => {
      req.destroy();
      reject(new Error(`no answer to ${path} within ${timeoutMs} ms`));
    });
    req.on("error", reject);
  });
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const seconds = (ms: number) => Math.floor(ms / 1000);

/** The answered range is inside [now - retention, now + 1 day] and its day series has at most retention + 2 buckets. */
function expectCut(body: { start: string; end: string; data?: unknown[] }, retentionDays: number, before: number, after: number) {
  expect(Date.parse(body.end)).toBeLessThanOrEqual(after + DAY);
  expect(Date.parse(body.end)).toBeGreaterThanOrEqual(before + DAY);
  expect(Date.parse(body.start)).toBeGreaterThanOrEqual(before - retentionDays * DAY);
  if (body.data) expect(body.data.length).toBeLessThanOrEqual(retentionDays + 2);
}

describe("an end far in the future", () => {
  it("API: start=0&end=99999999999 and an ISO end in 2500 answer at once, cut to a day from now", async () => {
    const { key } = await makeWorkspace("free"); // 30 days of retention
    for (const end of ["99999999999", "2500-01-01T00:00:00Z"]) {
      const before = Date.now();
      const r = await timedGet(`/api/v1/analytics?groupBy=timeseries&start=0&end=${encodeURIComponent(end)}`, bearer(key!), QUICK_MS);
      expect(r.status, r.text).toBe(200);
      expect(r.body.granularity).toBe("day");
      expectCut(r.body, 30, before, Date.now());
      // the other answers take the same range
      const count = await timedGet(`/api/v1/analytics?start=0&end=${encodeURIComponent(end)}`, bearer(key!), QUICK_MS);
      expect(count.status, count.text).toBe(200);
      expect(count.body).toMatchObject({ clicks: 0, visitors: 0 });
      expectCut(count.body, 30, before, Date.now());
    }
  });

  it("a redirect sent while such a request runs is not held up by it", async () => {
    const { workspace, key } = await makeWorkspace("team"); // 730 days of retention: the longest series a plan here asks for
    const code = `fast${Date.now().toString(36)}`;
    await db().link.create({ data: { workspaceId: workspace.id, code, url: "https://dest.example/fast" } });
    // warm up first (the app loads a route's code on its first request): only the report may be measured
    expect((await timedGet(`/${code}`, { host: TEST_SHORT_DOMAIN }, 30_000)).status).toBe(302);
    expect((await timedGet("/api/v1/analytics?groupBy=timeseries&interval=7d", bearer(key!), 30_000)).status).toBe(200);
    let heavyDone = false;
    const heavy = timedGet("/api/v1/analytics?groupBy=timeseries&start=0&end=99999999999", bearer(key!), 30_000).finally(
      () => (heavyDone = true),
    );
    heavy.catch(() => {}); // judged below
    // redirects one after another for as long as the report runs (at least one): none may wait
    const redirects: number[] = [];
    const deadline = Date.now() + 30_000;
    do {
      const r = await timedGet(`/${code}`, { host: TEST_SHORT_DOMAIN }, 30_000);
      expect(r.status).toBe(302);
      redirects.push(r.ms);
      expect(r.ms, `redirect ${redirects.length} while the report ran`).toBeLessThan(REDIRECT_MS);
    } while (!heavyDone && Date.now() < deadline);
    const report = await heavy;
    expect(report.status, report.text).toBe(200);
    expect(report.ms).toBeLessThan(QUICK_MS);
    expect(report.body.data.length).toBeLessThanOrEqual(730 + 2);
  });

  it("the Analytics page of a plain member (start=0&end=2200-01-01) shows the cut range and says so, never a 500", async () => {
    const { workspace } = await makeWorkspace("free", { keys: 0 });
    const user = await createUser({ email: `member-${workspace.slug}@example.test`, password: "password1" });
    await db().membership.create({ data: { workspaceId: workspace.id, userId: user.id, role: "member" } });
    const cookie = await signInCookie(env.app.url, user.email, "password1");
    for (const query of ["start=0&end=2200-01-01", "start=0&end=99999999999"]) {
      const r = await timedGet(`/w/${workspace.slug}/analytics?${query}`, { cookie }, QUICK_MS);
      expect(r.status, query).toBe(200);
      expect(r.text).toContain("ends at most a day from now");
      expect(r.text).toContain("what your plan keeps");
      expect(r.text).not.toContain("were not understood");
    }
    // an unreadable end is still the page's own message (the defaults are shown), not a 500
    const bad = await timedGet(`/w/${workspace.slug}/analytics?start=0&end=99999-01-01`, { cookie }, QUICK_MS);
    expect(bad.status).toBe(200);
    expect(bad.text).toContain("were not understood");
  });
});

describe("the number of buckets", () => {
  it("an hourly series covers at most 31 days: longer is 400 validation naming the limit", async () => {
    const { key } = await makeWorkspace("team");
    const now = Date.now();
    const long = await timedGet(
      `/api/v1/analytics?groupBy=timeseries&granularity=hour&start=${seconds(now - 40 * DAY)}&end=${seconds(now)}`,
      bearer(key!),
      QUICK_MS,
    );
    expect(long.status, long.text).toBe(400);
    expect(long.body).toEqual({ error: "validation", messages: [expect.stringContaining("at most 31 days")] });
    expect(long.body.messages[0]).toMatch(/^granularity: /);
    // 31 days asked and answered: 744 hours
    const month = await timedGet(
      `/api/v1/analytics?groupBy=timeseries&granularity=hour&start=${seconds(now - 31 * DAY)}&end=${seconds(now)}`,
      bearer(key!),
      QUICK_MS,
    );
    expect(month.status, month.text).toBe(200);
    expect(month.body.granularity).toBe("hour");
    expect(month.body.data.length).toBeGreaterThanOrEqual(31 * 24);
    expect(month.body.data.length).toBeLessThanOrEqual(31 * 24 + 1);
    // a bad granularity is the usual 400
    const bad = await timedGet(`/api/v1/analytics?groupBy=timeseries&granularity=minute`, bearer(key!), QUICK_MS);
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: "validation", messages: [expect.stringMatching(/^query granularity: must be one of hour, day/)] });
  });

  it("a daily series over more than the retention is cut to it (and a day from now)", async () => {
    const { key } = await makeWorkspace("free");
    const before = Date.now();
    const r = await timedGet(
      `/api/v1/analytics?groupBy=timeseries&start=${seconds(before - 400 * DAY)}&end=${seconds(before + 400 * DAY)}`,
      bearer(key!),
      QUICK_MS,
    );
    expect(r.status, r.text).toBe(200);
    expect(r.body.granularity).toBe("day");
    expectCut(r.body, 30, before, Date.now());
    expect(r.body.data.length).toBeGreaterThanOrEqual(31);
  });
});
