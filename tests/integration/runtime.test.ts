import http from "node:http";
import type { AddressInfo } from "node:net";
import pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import { createLink, createWorkspace, request, within } from "./redirects-helpers.ts";

// The runtime (lib/runtime.ts) as server.ts builds it, in this process: its short-link handler
// behind a plain HTTP server, its click pipeline, its jobs. close() writes what the pipeline holds,
// then closes every connection it opened, and the pools refuse to open again afterwards.

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let observer: pg.Client;

beforeAll(async () => {
  database = await createTestDatabase();
  process.env.SHORT_DOMAIN = "rt.short.test";
  process.env.CLICK_FLUSH_MS = "3600000"; // only close() flushes
  await useDatabaseInProcess(database.url);
  observer = new pg.Client({ connectionString: database.url });
  await observer.connect();
});

afterAll(async () => {
  await observer?.end();
  await database?.drop();
});

/** Connections to the test database other than the observer's own. */
async function othersConnected(): Promise<number> {
  const { rows } = await observer.query(
    `select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend'`,
  );
  return rows[0].n;
}

test("close(): the last flush stores buffered clicks (counter and event), then every connection is closed and stays closed", async () => {
  const { createRuntime, currentRuntime } = await import("../../lib/runtime.ts");
  const { config } = await import("../../lib/config/index.ts");
  const { db } = await import("../../lib/db/client.ts");
  const ws = await createWorkspace();
  const link = await createLink(ws.id, { code: "rt1" });
  await currentRuntime()?.close(); // the one useDatabaseInProcess built (no jobs, no handler)

  const runtime = await createRuntime(config(), { serve: true, jobs: true });
  const server = http.createServer((req, res) => {
    if (runtime.shortLinks!.handles(req)) runtime.shortLinks!.handle(req, res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const port = (server.address() as AddressInfo).port;
    for (let i = 0; i < 3; i++) expect((await request(port, "rt.short.test", "/rt1")).status).toBe(302);
    expect(await othersConnected()).toBeGreaterThan(0);
  } finally {
    server.close();
  }
  await runtime.close();

  // a closed client's backend exits a moment after the client has gone
  await within(5000, async () => (await othersConnected()) === 0);
  expect(await othersConnected()).toBe(0);
  expect(() => db()).toThrow(/closed/);
  const clicks = (await observer.query(`select clicks from "Link" where id = $1`, [link.id])).rows[0].clicks;
  const events = (await observer.query(`select count(*)::int as n from analytics.click_event where link_id = $1`, [link.id])).rows[0].n;
  expect({ clicks, events }).toEqual({ clicks: 3, events: 3 });
  expect(currentRuntime()).toBeUndefined();
});
