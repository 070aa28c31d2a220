import net from "node:net";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unmarkRollupDays } from "../../lib/analytics/store/rollup-build.ts";
import { PostgresClickStore } from "../../lib/analytics/store/click-store.ts";
import { db } from "../../lib/db/client.ts";
import { client, makeWorkspace, startApiTest, TEST_APP_URL, type ApiTestEnv } from "../support/api.ts";
import { eventually } from "../support/eventually.ts";

// A CSV export streams from a database cursor that holds one of analytics' connections (4 per
// process) until the file is read to its end. A client that stops reading used to hold it for ever,
// and four such clients took every connection: reports hung and click writes failed. Now an export
// is ended after ANALYTICS_EXPORT_TIMEOUT (here 8 s, so the test waits seconds, not the default 15
// minutes) and at most ANALYTICS_EXPORTS_MAX run at once (default: half the pool, 2).

let env: ApiTestEnv;
let pool: pg.Pool;
const DEADLINE_MS = 8_000;
const DAY = 86_400_000;
const BIG_EVENTS = 60_000; // ~40 MB of CSV: far more than the sockets between app and client buffer

beforeAll(async () => {
  env = await startApiTest({ env: { ANALYTICS_EXPORT_TIMEOUT: `${DEADLINE_MS}ms`, ANALYTICS_POOL_SIZE: "4" } });
  pool = new pg.Pool({ connectionString: env.databaseUrl, max: 2 });
}, 120_000);

afterAll(async () => {
  await pool?.end();
  await env?.stop();
});

/** Events of one link in the last days: one through the store (it makes the month's partition), the rest by SQL. */
async function seed(workspaceId: number, linkId: number, n: number, at: number) {
  const one = {
    at,
    workspaceId,
    linkId,
    domain: "localhost:3000",
    target: "destination" as const,
    country: "SE",
    city: null,
    referrerHost: "t.co",
    referrerUrl: "https://t.co/" + "x".repeat(480),
    device: "mobile",
    browser: "Safari",
    os: "iOS",
    bot: false,
    qr: false,
    visitor: "1",
  };
  await new PostgresClickStore(pool).record([one]);
  if (n <= 1) return;
  await pool.query(
    `insert into analytics.click_event
       (at, workspace_id, link_id, domain, target, country, city, referrer_host, referrer_url, device, browser, os, bot, qr, visitor)
     select to_timestamp(($3::float8 + i) / 1000.0), $1, $2, 'localhost:3000', 'destination', 'SE', null, 't.co',
            'https://t.co/' || repeat('x', 480), 'mobile', 'Safari', 'iOS', false, false, i
     from generate_series(1, $4::int) as i`,
    [workspaceId, linkId, at, n - 1],
  );
  // Rows inserted by SQL do not mark their day as late, as the store does: if the app's rollup job
  // built that day already, reports would read the rollup without them. Read the day raw again.
  await unmarkRollupDays(pool, [Math.floor(at / DAY)]);
}

/** How many database sessions hold an export cursor open now (a transaction whose last statement used it). */
async function heldCursors(): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(
    `select count(*)::int as n from pg_stat_activity
     where datname = current_database() and state like 'idle in transaction%' and query ilike '%click_export%'`,
  );
  return rows[0].n;
}

/** An export whose client sends the request and then reads nothing. */
function stalledExport(key: string, query: string): net.Socket {
  const socket = net.connect(env.app.port, "127.0.0.1", () => {
    socket.write(
      `GET /api/v1/analytics/export?${query} HTTP/1.1\r\nHost: ${new URL(TEST_APP_URL).host}\r\nAuthorization: Bearer ${key}\r\n\r\n`,
    );
    socket.pause();
  });
  socket.on("error", () => {});
  return socket;
}

describe("exports a client stops reading", () => {
  it("hold no connection past the deadline, never more than half the pool, and reports answer meanwhile", async () => {
    const { workspace, key } = await makeWorkspace("team");
    const big = await db().link.create({ data: { workspaceId: workspace.id, code: "big", url: "https://dest.example/big" } });
    const small = await db().link.create({ data: { workspaceId: workspace.id, code: "small", url: "https://dest.example/small" } });
    const at = Date.now() - 2 * DAY;
    await seed(workspace.id, big.id, BIG_EVENTS, at);
    await seed(workspace.id, small.id, 1, at + DAY);
    const api = client(env.app, key!);

    const sockets = [stalledExport(key!, "interval=7d"), stalledExport(key!, "interval=7d")];
    try {
      // both are streaming and stuck: each holds a cursor in an open transaction
      await eventually(async () => (await heldCursors()) === 2, DEADLINE_MS, "two stalled exports holding a cursor each");
      const startedStalling = Date.now();

      // a third export is refused while they run (the pool keeps connections for the rest)
      const third = await api.get("/api/v1/analytics/export?interval=7d&link=small");
      expect(third.status, third.text.slice(0, 200)).toBe(429);
      expect(third.body).toEqual({ error: "rate_limit", limit: 2 });
      // reports still answer
      const report = await api.get("/api/v1/analytics?interval=7d");
      expect(report.status, report.text).toBe(200);
      expect(report.body.clicks).toBe(BIG_EVENTS + 1);

      // after the deadline the connections are back (a generous margin for a busy machine, no fixed sleep)
      await eventually(async () => (await heldCursors()) === 0, DEADLINE_MS + 10_000, "the stalled exports' cursors released");
      expect(Date.now() - startedStalling).toBeLessThan(DEADLINE_MS + 10_000);
      // and their slots: an export runs again, whole
      await eventually(
        async () => (await api.get("/api/v1/analytics/export?interval=7d&link=small")).status === 200,
        5_000,
        "an export accepted again",
      );
      const csv = await api.get("/api/v1/analytics/export?interval=7d&link=small");
      expect(csv.status).toBe(200);
      expect(csv.text.trim().split("\n")).toHaveLength(2); // the header and the one event
      expect(env.app.logs()).toContain("ANALYTICS_EXPORT_TIMEOUT");
    } finally {
      for (const s of sockets) s.destroy();
    }
  });
});
