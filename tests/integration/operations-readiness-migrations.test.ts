import http from "node:http";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shippedMigrations } from "../../lib/db/migrate.ts";
import { startApp, type RunningApp } from "../support/app.ts";
import { createTestDatabase } from "../support/db.ts";
import { eventually } from "./webhooks-helpers.ts";

// /readyz also requires every migration this build ships (prisma/migrations) to be applied
// (lib/db/readiness.ts reads _prisma_migrations on each check). The app applies pending migrations
// before it serves (lib/db/start.ts), so a database falls behind only under a running process:
// here its record of the last migration is taken away (deleted, then marked rolled back) and
// given back, and /readyz follows each time while /healthz, which never asks PostgreSQL, stays 200.

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let admin: pg.Client;
let app: RunningApp;
const last = shippedMigrations().at(-1)!;

function get(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, path, agent: false, headers: { host: "localhost:3000" } }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode!, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** /readyz once it answers `status` (asked again until then, within a generous deadline). */
const readyzAnswers = (status: number) =>
  eventually(
    async () => {
      const a = await get(app.port, "/readyz");
      return a.status === status ? a : null;
    },
    15_000,
    `/readyz ${status}`,
  );

beforeAll(async () => {
  database = await createTestDatabase();
  admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  app = await startApp(database.url);
});

afterAll(async () => {
  await app?.stop();
  await admin?.end();
  await database?.drop();
});

describe("/readyz and pending migrations", () => {
  it("answers 503 naming the migration while the last one is not recorded as applied, and 200 again once it is", async () => {
    expect(await get(app.port, "/readyz")).toEqual({ status: 200, body: "ready\n" });
    const { rows } = await admin.query(`select * from "_prisma_migrations" where migration_name = $1`, [last]);
    expect(rows).toHaveLength(1);
    const row = rows[0];

    await admin.query(`delete from "_prisma_migrations" where migration_name = $1`, [last]);
    try {
      expect(await readyzAnswers(503)).toEqual({ status: 503, body: `not ready: database: 1 migration(s) not applied, first ${last}\n` });
      expect(await get(app.port, "/healthz")).toEqual({ status: 200, body: "ok\n" });
    } finally {
      // the very row back (same id and checksum), as if the migration had been applied again
      const columns = Object.keys(row);
      await admin.query(
        `insert into "_prisma_migrations" (${columns.map((c) => `"${c}"`).join(", ")}) values (${columns.map((_, i) => `$${i + 1}`).join(", ")})`,
        columns.map((c) => row[c]),
      );
    }
    expect(await readyzAnswers(200)).toEqual({ status: 200, body: "ready\n" });
  });

  it("counts a migration marked rolled back as not applied", async () => {
    expect((await get(app.port, "/readyz")).status).toBe(200);
    await admin.query(`update "_prisma_migrations" set rolled_back_at = now() where migration_name = $1`, [last]);
    try {
      expect(await readyzAnswers(503)).toEqual({ status: 503, body: `not ready: database: 1 migration(s) not applied, first ${last}\n` });
    } finally {
      await admin.query(`update "_prisma_migrations" set rolled_back_at = null where migration_name = $1`, [last]);
    }
    expect(await readyzAnswers(200)).toEqual({ status: 200, body: "ready\n" });
  });
});
