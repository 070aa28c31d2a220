// The webhook scheduler's due claim as PostgreSQL plans it (`npm run bench:claim-plan`): a fresh
// embedded PostgreSQL with 100,000 pending deliveries due at one instant, spread over 1, 20 and 500
// endpoints, then the claim's candidate read (lib/webhooks/sql.ts CLAIM_DUE, LIMIT 200) under
// EXPLAIN ANALYZE, as written and without the OFFSET 0 that keeps its NOT EXISTS a per-row check:
// with one endpoint the planner otherwise turns it into a hash anti-join over the whole backlog and
// sorts it (about 110 ms against 0.3 ms here). Prints each plan's top nodes and execution time; never
// passes or fails on timing.
import os from "node:os";
import path from "node:path";
import fs from "node:fs";
import pg from "pg";
import { startEmbeddedPostgres } from "../../lib/db/embedded.ts";
import { applyMigrations } from "../../lib/db/migrate.ts";

const DELIVERIES = 100_000;

function candidates(offset: string): string {
  return `explain (analyze, costs off, timing off, summary on)
    SELECT id, "endpointId", "nextAttemptAt" FROM "Delivery"
     WHERE status = 'pending' AND "isTest" = false AND "nextAttemptAt" <= now() AND ("lockedUntil" IS NULL OR "lockedUntil" < now())
       AND NOT ("endpointId" = ANY('{}'::int[]))
       AND NOT EXISTS (SELECT 1 FROM "WebhookEndpoint" e
                        WHERE e.id = "Delivery"."endpointId" AND e."sendSlotAt" > now() + interval '1 second' ${offset})
     ORDER BY "nextAttemptAt", id LIMIT 200 FOR UPDATE SKIP LOCKED`;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "linkhop-claim-plan-"));
const embedded = await startEmbeddedPostgres(path.join(dir, "pg"), "claim_plan");
try {
  await applyMigrations(embedded.url);
  for (const endpoints of [1, 20, 500]) {
    const c = new pg.Client({ connectionString: embedded.url });
    await c.connect();
    await c.query(`truncate "Workspace" cascade`);
    const ws = await c.query(`insert into "Workspace" (slug, name, plan) values ('w', 'w', 'business') returning id`);
    await c.query(
      `insert into "WebhookEndpoint" ("workspaceId", url, secret) select $1, 'https://example.com/h' || i, 's' from generate_series(1, $2) i`,
      [ws.rows[0].id, endpoints],
    );
    await c.query(
      `insert into "WebhookEvent" (id, "workspaceId", type, body, "createdAt") select 'evt_' || i, $1, 'link.clicked', '{}', now() from generate_series(1, $2) i`,
      [ws.rows[0].id, DELIVERIES],
    );
    await c.query(
      `insert into "Delivery" ("eventId", "endpointId", status, "nextAttemptAt")
       select 'evt_' || i, (select min(id) from "WebhookEndpoint") + (i % $1), 'pending', now() - interval '1 minute' from generate_series(1, $2) i`,
      [endpoints, DELIVERIES],
    );
    await c.query("analyze");
    for (const [name, offset] of [
      ["as written (OFFSET 0)", "OFFSET 0"],
      ["without OFFSET 0", ""],
    ]) {
      let plan: string[] = [];
      for (let i = 0; i < 3; i++) plan = (await c.query(candidates(offset))).rows.map((r) => r["QUERY PLAN"]);
      const nodes = [...plan.filter((l) => /->|Sort Method/.test(l)).slice(0, 5), ...plan.filter((l) => /Execution Time/.test(l))];
      console.log(`${endpoints} endpoint(s), ${DELIVERIES} due, ${name}:\n  ${nodes.map((l) => l.trim()).join("\n  ")}`);
    }
    await c.end();
  }
} finally {
  await embedded.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
