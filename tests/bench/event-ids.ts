// What the shape of an event id costs PostgreSQL (`npm run bench:event-ids`): WebhookEvent's primary
// key and Delivery's (eventId, endpointId) index lead with the id, so a random id writes each new
// event into a random page of both, and a time-ordered one (lib/events/index.ts newEventId) into
// their last page. On a fresh embedded PostgreSQL with the app's migrations, for each kind of id:
// BENCH_HISTORY (default 1,000,000) events and their deliveries already there (ids of that kind),
// then a checkpoint (as PostgreSQL makes every 5 minutes), then BENCH_EVENTS (default 20,000) new
// events, each with its delivery in its own transaction, from BENCH_CONNECTIONS (default 8)
// connections. Prints per new event: WAL bytes and full-page images (pg_stat_wal), PostgreSQL's CPU
// (all its processes), and the wall time. Prints figures only; it never passes or fails on timing.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { startEmbeddedPostgres } from "../../lib/db/embedded.ts";
import { applyMigrations } from "../../lib/db/migrate.ts";
import { newEventId } from "../../lib/events/index.ts";
import { postgresCpu, postmasterPid } from "./cpu.ts";

const HISTORY = Number(process.env.BENCH_HISTORY ?? 1_000_000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 20_000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);

type Kind = { name: string; sqlId: string; newId: () => string };
const KINDS: Kind[] = [
  // the id before 2026-12-08: 16 random bytes
  { name: "random", sqlId: `'evt_' || md5(random()::text)`, newId: () => "evt_" + randomBytes(16).toString("hex") },
  {
    name: "time-ordered",
    // the history's times: the last BENCH_HISTORY seconds' worth of ms before now, in order
    sqlId: `'evt_' || lpad(to_hex((extract(epoch from now()) * 1000)::bigint - ($1::bigint - i) * 40), 12, '0') || substr(md5(random()::text), 1, 20)`,
    newId: () => newEventId(),
  },
];

async function run(kind: Kind, url: string, postmaster: number) {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`truncate "WebhookEvent", "Delivery" cascade`);
  const { rows: ws } = await admin.query<{ id: number }>(`select id from "Workspace" limit 1`);
  const { rows: ep } = await admin.query<{ id: number }>(`select id from "WebhookEndpoint" limit 1`);
  const seeded = performance.now();
  await admin.query(
    `insert into "WebhookEvent" (id, "workspaceId", type, "createdAt", body)
     select ${kind.sqlId}, $2, 'link.created', now() - ($1::int - i) * interval '40 ms', '{}' from generate_series(1, $1::int) i`,
    [HISTORY, ws[0].id],
  );
  await admin.query(
    `insert into "Delivery" ("eventId", "endpointId", status, attempts, "createdAt", "updatedAt")
     select id, $1, 'delivered', 1, "createdAt", "createdAt" from "WebhookEvent"`,
    [ep[0].id],
  );
  await admin.query(`vacuum analyze "WebhookEvent", "Delivery"`);
  console.log(`${kind.name}: ${HISTORY} events and deliveries seeded in ${((performance.now() - seeded) / 1000).toFixed(0)} s`);
  await admin.query(`checkpoint`);
  await admin.query(`select pg_stat_reset_shared('wal')`);
  const { rows: lsn } = await admin.query<{ at: string }>(`select pg_current_wal_lsn()::text as at`);

  const clients = await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      return c;
    }),
  );
  const cpuBefore = postgresCpu(postmaster);
  const started = performance.now();
  let next = 0;
  await Promise.all(
    clients.map(async (c) => {
      while (next < EVENTS) {
        next++;
        const id = kind.newId();
        await c.query({
          name: "event_and_delivery",
          text: `with e as (insert into "WebhookEvent" (id, "workspaceId", type, "createdAt", body) values ($1, $2, 'link.created', now(), '{}') returning id)
                 insert into "Delivery" ("eventId", "endpointId", "nextAttemptAt", "updatedAt") select id, $3, now(), now() from e`,
          values: [id, ws[0].id, ep[0].id],
        });
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpu = postgresCpu(postmaster) - cpuBefore;
  const { rows: bytes } = await admin.query<{ n: string }>(`select pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::bigint as n`, [
    lsn[0].at,
  ]);
  // a backend's WAL counters reach pg_stat_wal when it ends (or within a second or so)
  await Promise.all(clients.map((c) => c.end()));
  await new Promise((r) => setTimeout(r, 1500));
  const { rows: wal } = await admin.query<{ fpi: string }>(`select wal_fpi::bigint as fpi from pg_stat_wal`);
  console.log(
    `${kind.name}: ${EVENTS} new events with their deliveries: ${(EVENTS / seconds).toFixed(0)} a second, per event ` +
      `${(Number(bytes[0].n) / EVENTS).toFixed(0)} WAL bytes, ${(Number(wal[0].fpi) / EVENTS).toFixed(2)} full-page images, ` +
      `${((cpu * 1e6) / EVENTS).toFixed(0)} µs of PostgreSQL CPU`,
  );
  await admin.end();
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "linkhop-bench-ids-"));
const embedded = await startEmbeddedPostgres(path.join(dir, "pg"), "linkhop_bench");
try {
  await applyMigrations(embedded.url);
  const setup = new pg.Client({ connectionString: embedded.url });
  await setup.connect();
  const { rows } = await setup.query<{ id: number }>(
    `insert into "Workspace" (slug, name, plan) values ('ids', 'ids', 'business') returning id`,
  );
  await setup.query(`insert into "WebhookEndpoint" ("workspaceId", url, secret) values ($1, 'https://example.com/hook', 'whsec_bench')`, [
    rows[0].id,
  ]);
  await setup.end();
  const postmaster = postmasterPid(path.join(dir, "pg", "pg"));
  if (postmaster === null) throw new Error("no postmaster pid");
  console.log(`Event ids: ${HISTORY} events already there, ${EVENTS} new ones from ${CONNECTIONS} connections, one transaction each`);
  // twice each, alternating: the second pair shows how much the figures move between runs
  for (let round = 0; round < 2; round++) for (const kind of KINDS) await run(kind, embedded.url, postmaster);
} finally {
  await embedded.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
