// The webhook scheduler's due claim as PostgreSQL runs it (`npm run bench:claim-plan`): a fresh
// embedded PostgreSQL with 100,000 pending deliveries, then the real claim statement
// (lib/webhooks/sql.ts claimDue, with the built-in scheduler's batch and room per endpoint) under EXPLAIN ANALYZE, in a
// transaction rolled back after each run, in these cases:
//   spread        100,000 due now over 1, 20 and 500 endpoints
//   held          one endpoint's 100,000 due while this process holds enough of it (skipped), and
//                 one delivery of another endpoint due
//   paced         the same backlog while its endpoint's send slots are taken for the next hour
//   scheduled     100,000 due in an hour (none due now) over 20 endpoints
// Prints the execution time, the rows the plan's nodes removed by their filters (what it read and
// left), and the deliveries claimed; BENCH_PLAN=1 prints each plan whole. Never passes or fails on
// timing. The claim reads each
// endpoint's due rows apart (PENDING_ENDPOINTS_CTE), so a backlog it leaves where it is costs it
// nothing; the walk over every due delivery it replaced removed all 100,000 rows in the held and
// paced cases (10 and 100 ms here).
import os from "node:os";
import path from "node:path";
import fs from "node:fs";
import pg from "pg";
import { startEmbeddedPostgres } from "../../lib/db/embedded.ts";
import { applyMigrations } from "../../lib/db/migrate.ts";
import { SCHEDULER_DEFAULTS } from "../../lib/webhooks/scheduler.ts";
import { claimDue } from "../../lib/webhooks/sql.ts";

const DELIVERIES = 100_000;

type Case = { name: string; endpoints: number; dueIn: string; skipFirst?: boolean; paceFirst?: boolean; oneMoreDue?: boolean };
const CASES: Case[] = [
  { name: "spread over 1 endpoint", endpoints: 1, dueIn: "-1 minute" },
  { name: "spread over 20 endpoints", endpoints: 20, dueIn: "-1 minute" },
  { name: "spread over 500 endpoints", endpoints: 500, dueIn: "-1 minute" },
  { name: "held: the backlog's endpoint skipped", endpoints: 1, dueIn: "-1 minute", skipFirst: true, oneMoreDue: true },
  { name: "paced: its send slots taken for an hour", endpoints: 1, dueIn: "-1 minute", paceFirst: true, oneMoreDue: true },
  { name: "scheduled: all due in an hour", endpoints: 20, dueIn: "1 hour" },
];

/** Runs claimDue's statement under EXPLAIN ANALYZE in a transaction rolled back; keeps the plan. */
function explaining(c: pg.Client, plan: string[]): pg.Pool {
  const query = async (config: pg.QueryConfig) => {
    await c.query("begin");
    try {
      const r = await c.query({ text: `explain (analyze, costs off, timing off, summary on) ${config.text}`, values: config.values });
      plan.splice(0, plan.length, ...r.rows.map((row) => row["QUERY PLAN"] as string));
    } finally {
      await c.query("rollback");
    }
    return { rows: [] };
  };
  return { query } as unknown as pg.Pool;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "linkhop-claim-plan-"));
const embedded = await startEmbeddedPostgres(path.join(dir, "pg"), "claim_plan");
try {
  await applyMigrations(embedded.url);
  const c = new pg.Client({ connectionString: embedded.url });
  await c.connect();
  for (const k of CASES) {
    await c.query(`truncate "Workspace" cascade`);
    const ws = await c.query(`insert into "Workspace" (slug, name, plan) values ('w', 'w', 'business') returning id`);
    await c.query(
      `insert into "WebhookEndpoint" ("workspaceId", url, secret) select $1, 'https://example.com/h' || i, 's' from generate_series(1, $2) i`,
      [ws.rows[0].id, k.endpoints + (k.oneMoreDue ? 1 : 0)],
    );
    const first = (await c.query(`select min(id) as id from "WebhookEndpoint"`)).rows[0].id as number;
    await c.query(
      `insert into "WebhookEvent" (id, "workspaceId", type, body, "createdAt") select 'evt_' || i, $1, 'link.clicked', '{}', now() from generate_series(0, $2) i`,
      [ws.rows[0].id, DELIVERIES],
    );
    await c.query(
      `insert into "Delivery" ("eventId", "endpointId", status, "nextAttemptAt")
       select 'evt_' || i, $3::int + (i % $1), 'pending', now() + $4::interval from generate_series(1, $2) i`,
      [k.endpoints, DELIVERIES, first, k.dueIn],
    );
    if (k.oneMoreDue)
      await c.query(
        `insert into "Delivery" ("eventId", "endpointId", status, "nextAttemptAt") values ('evt_0', $1, 'pending', now() - interval '1 second')`,
        [first + k.endpoints],
      );
    if (k.paceFirst) await c.query(`update "WebhookEndpoint" set "sendSlotAt" = now() + interval '1 hour' where id = $1`, [first]);
    await c.query("analyze");
    const plan: string[] = [];
    const now = new Date();
    for (let i = 0; i < 3; i++)
      await claimDue(explaining(c, plan), {
        now,
        until: new Date(now.getTime() + 60_000),
        limit: SCHEDULER_DEFAULTS.batch,
        skipEndpoints: k.skipFirst ? [first] : [],
        slotHorizon: new Date(now.getTime() + 1000),
        rooms: new Map(),
        defaultRoom: SCHEDULER_DEFAULTS.perEndpoint + SCHEDULER_DEFAULTS.queuedPerEndpoint,
      });
    const removed = plan.reduce((n, l) => n + Number(/Rows Removed by Filter: (\d+)/.exec(l)?.[1] ?? 0), 0);
    // the claim's UPDATE node: how many deliveries it held
    const update = plan.find((l) => l.includes('Update on "Delivery"')) ?? "";
    const claimed = Number(/actual rows=([\d.]+)/.exec(update)?.[1] ?? NaN);
    const time = plan.find((l) => l.includes("Execution Time"))?.trim();
    console.log(`${k.name.padEnd(40)} ${time}, rows removed by filters: ${removed}, claimed: ${claimed}`);
    if (process.env.BENCH_PLAN === "1") console.log(plan.map((l) => `    ${l}`).join("\n"));
  }
  await c.end();
} finally {
  await embedded.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
