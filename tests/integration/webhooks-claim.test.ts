// The built-in scheduler's claim (lib/webhooks/sql.ts claimDue) on real PostgreSQL: it takes the
// first `limit` due deliveries in due order (ties by id), at most each endpoint's room, skipping
// the endpoints the process holds enough of and those whose send slots are taken; it reads per
// endpoint, so a backlog it leaves where it is costs it no reads; concurrent claims take disjoint
// rows. Each claim here runs in a transaction that is rolled back, so one data set serves many.
import pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import { newWorkspace, useEnv } from "./webhooks-helpers.ts";

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let client: pg.Client;

beforeAll(async () => {
  database = await createTestDatabase();
  useEnv({ WEBHOOK_ALLOW_PRIVATE: "1", DNS_SERVERS: undefined });
  await useDatabaseInProcess(database.url);
  client = new pg.Client({ connectionString: database.url });
  await client.connect();
});

afterAll(async () => {
  await client?.end();
  const { disconnectDb } = await import("../../lib/db/client.ts");
  await disconnectDb();
  await database?.drop();
});

// every test starts with no pending delivery (the claim looks at every endpoint)
beforeEach(async () => {
  await client.query(`update "Delivery" set status = 'cancelled' where status = 'pending'`);
});

const NOW = new Date("2031-05-01T12:00:00.000Z");
const at = (secondsFromNow: number) => new Date(NOW.getTime() + secondsFromNow * 1000);

async function endpoints(n: number): Promise<number[]> {
  const ws = await newWorkspace("team");
  const { rows } = await client.query<{ id: number }>(
    `insert into "WebhookEndpoint" ("workspaceId", url, secret) select $1, 'http://127.0.0.1:9/claim-' || i, 's' from generate_series(1, $2) i returning id`,
    [ws.id, n],
  );
  return rows.map((r) => r.id).sort((a, b) => a - b);
}

type Row = { endpointId: number; next: Date; lockedUntil?: Date | null };

/** Pending deliveries (one event each), in the order given: ids ascend in that order. */
async function deliveries(workspaceOf: number, rows: Row[]): Promise<number[]> {
  if (!rows.length) return [];
  const ws = (await client.query<{ workspaceId: number }>(`select "workspaceId" from "WebhookEndpoint" where id = $1`, [workspaceOf]))
    .rows[0];
  const { rows: made } = await client.query<{ id: number }>(
    `with e as (
       insert into "WebhookEvent" (id, "workspaceId", type, body, "createdAt")
       select 'evt_claim_' || gen_random_uuid(), $1, 'member.joined', '{}', now() from generate_series(1, $2)
       returning id
     ), numbered as (select id, row_number() over (order by id) as n from e)
     insert into "Delivery" ("eventId", "endpointId", status, "nextAttemptAt", "lockedUntil")
     select numbered.id, r."endpointId", 'pending', r.next, r.locked
       from unnest($3::int[], $4::timestamptz[], $5::timestamptz[]) with ordinality as r("endpointId", next, locked, n)
       join numbered on numbered.n = r.n
      order by r.n
     returning id`,
    [ws.workspaceId, rows.length, rows.map((r) => r.endpointId), rows.map((r) => r.next), rows.map((r) => r.lockedUntil ?? null)],
  );
  return made.map((r) => r.id).sort((a, b) => a - b);
}

type ClaimOptions = { limit: number; skip?: number[]; paced?: number[]; rooms?: Map<number, number>; defaultRoom: number };

/** claimDue on `q` at NOW (its slot horizon a second later; `paced`: endpoints whose slots `client` takes for an hour first). */
async function claim(q: pg.ClientBase, o: ClaimOptions) {
  const { claimDue } = await import("../../lib/webhooks/sql.ts");
  if (o.paced?.length) await client.query(`update "WebhookEndpoint" set "sendSlotAt" = $2 where id = any($1::int[])`, [o.paced, at(3600)]);
  return claimDue(q as unknown as pg.Pool, {
    now: NOW,
    until: at(60),
    limit: o.limit,
    skipEndpoints: o.skip ?? [],
    slotHorizon: at(1),
    rooms: o.rooms ?? new Map(),
    defaultRoom: o.defaultRoom,
  });
}

/** `fn` in a transaction of `client` that is rolled back. */
async function rolledBack<T>(fn: () => Promise<T>): Promise<T> {
  await client.query("begin");
  try {
    return await fn();
  } finally {
    await client.query("rollback");
  }
}

/** What the claim must take, straight from its definition: due (and not held) rows in due order, ties by id, each endpoint up to its room, the first `limit`. */
function expectedClaim(rows: (Row & { id: number })[], o: ClaimOptions): number[] {
  const out: number[] = [];
  const taken = new Map<number, number>();
  const due = rows
    .filter((r) => r.next.getTime() <= NOW.getTime() && (!r.lockedUntil || r.lockedUntil.getTime() < NOW.getTime()))
    .filter((r) => !o.skip?.includes(r.endpointId) && !o.paced?.includes(r.endpointId))
    .sort((a, b) => a.next.getTime() - b.next.getTime() || a.id - b.id);
  for (const r of due) {
    const room = o.rooms?.get(r.endpointId) ?? o.defaultRoom;
    if ((taken.get(r.endpointId) ?? 0) >= room || out.length >= o.limit) continue;
    taken.set(r.endpointId, (taken.get(r.endpointId) ?? 0) + 1);
    out.push(r.id);
  }
  return out.sort((a, b) => a - b);
}

describe("the scheduler's claim (claimDue)", () => {
  it("takes the first due deliveries in due order, ties by id, each endpoint up to its room, skipping held and paced endpoints", async () => {
    const [a, b, held, paced] = await endpoints(4);
    const rows: Row[] = [
      ...[1, 2, 3, 4, 5].map(() => ({ endpointId: a, next: at(-60) })),
      ...[1, 2, 3, 4, 5].map(() => ({ endpointId: b, next: at(-30) })),
      ...[1, 2, 3].map(() => ({ endpointId: held, next: at(-90) })),
      ...[1, 2, 3].map(() => ({ endpointId: paced, next: at(-90) })),
      { endpointId: b, next: at(-120), lockedUntil: at(30) }, // held by another claim
      { endpointId: b, next: at(5) }, // not due yet
    ];
    const ids = await deliveries(a, rows);
    const claimed = await rolledBack(() =>
      claim(client, { limit: 6, skip: [held], paced: [paced], rooms: new Map([[a, 2]]), defaultRoom: 10 }),
    );
    // a's two oldest (its room), then b's four oldest of those due and free
    expect(claimed.map((c) => c.id).sort((x, y) => x - y)).toEqual([ids[0], ids[1], ids[5], ids[6], ids[7], ids[8]]);
    expect(claimed.filter((c) => c.endpointId === a)).toHaveLength(2);
  });

  it("agrees with the claim's definition on 40 random sets of deliveries, rooms, held and paced endpoints", async () => {
    const eps = await endpoints(8);
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)];
    for (let round = 0; round < 40; round++) {
      await client.query(`update "Delivery" set status = 'cancelled' where status = 'pending'`);
      await client.query(`update "WebhookEndpoint" set "sendSlotAt" = null where id = any($1::int[])`, [eps]);
      const rows: Row[] = Array.from({ length: Math.floor(random() * 60) }, () => ({
        endpointId: pick(eps),
        // shared instants make ties, which go by id
        next: at(pick([-300, -120, -120, -60, -1, 0, 2, 600])),
        lockedUntil: random() < 0.15 ? at(pick([-5, 30])) : null,
      }));
      const ids = await deliveries(eps[0], rows);
      const withIds = rows.map((r, i) => ({ ...r, id: ids[i] }));
      const o: ClaimOptions = {
        limit: 1 + Math.floor(random() * 30),
        skip: eps.filter(() => random() < 0.15),
        paced: eps.filter(() => random() < 0.15),
        rooms: new Map(eps.filter(() => random() < 0.3).map((e) => [e, Math.floor(random() * 4)])),
        defaultRoom: 1 + Math.floor(random() * 8),
      };
      const claimed = await rolledBack(() => claim(client, o));
      expect(
        claimed.map((c) => c.id).sort((x, y) => x - y),
        `round ${round}`,
      ).toEqual(expectedClaim(withIds, o));
    }
  });

  it("reads no row of a backlog it leaves: 5,000 due deliveries of a held endpoint, then of a paced one", async () => {
    const [backlogged, other] = await endpoints(2);
    await deliveries(backlogged, [
      ...Array.from({ length: 5000 }, () => ({ endpointId: backlogged, next: at(-60) })),
      { endpointId: other, next: at(-1) },
    ]);
    await client.query(`analyze "Delivery"`);
    for (const o of [
      { limit: 50, skip: [backlogged], defaultRoom: 32 },
      { limit: 50, paced: [backlogged], defaultRoom: 32 },
    ]) {
      const claimed = await rolledBack(() => claim(client, o));
      const rowsRead = await rolledBack(async () => {
        const plans: unknown[] = [];
        const explaining = {
          query: async (config: pg.QueryConfig) => {
            const r = await client.query({ text: `explain (analyze, format json) ${config.text}`, values: config.values });
            plans.push(r.rows[0]["QUERY PLAN"]);
            return { rows: [] };
          },
        };
        await claim(explaining as unknown as pg.ClientBase, o);
        return deliveryRowsRead(plans[0]);
      });
      expect(claimed.map((c) => c.endpointId)).toEqual([other]);
      expect(rowsRead, JSON.stringify(o)).toBeLessThan(50);
    }
  });

  it("gives two claims at once disjoint deliveries", async () => {
    const eps = await endpoints(3);
    const ids = await deliveries(
      eps[0],
      eps.flatMap((e) => Array.from({ length: 10 }, (_, i) => ({ endpointId: e, next: at(-i) }))),
    );
    const other = new pg.Client({ connectionString: database.url });
    await other.connect();
    try {
      const otherPid = (await other.query<{ pid: number }>(`select pg_backend_pid() as pid`)).rows[0].pid;
      await client.query("begin");
      const first = await claim(client, { limit: 12, defaultRoom: 6 });
      // the second starts while the first holds its rows uncommitted: it answers, or waits for the
      // first's endpoint rows (their send slots), and goes on once the first commits
      let answered = false;
      const secondClaim = claim(other, { limit: 30, defaultRoom: 10 }).finally(() => (answered = true));
      const deadline = Date.now() + 10_000;
      for (;;) {
        const waiting = await client.query(`select 1 from pg_stat_activity where pid = $1 and wait_event_type = 'Lock'`, [otherPid]);
        if (answered || waiting.rowCount) break;
        if (Date.now() > deadline) throw new Error("the second claim neither answered nor waited on a lock");
        await new Promise((r) => setTimeout(r, 20));
      }
      await client.query("commit");
      const second = await secondClaim;
      const a = first.map((c) => c.id);
      const b = second.map((c) => c.id);
      expect(a).toHaveLength(12);
      expect(a.filter((id) => b.includes(id))).toEqual([]);
      expect([...a, ...b].every((id) => ids.includes(id))).toBe(true);
      // what neither took is still there to claim
      const third = await claim(other, { limit: 30, defaultRoom: 10 });
      expect(new Set([...a, ...b, ...third.map((c) => c.id)]).size).toBe(30);
    } finally {
      await client.query("rollback").catch(() => {});
      await other.end();
    }
  });
});

/** Rows of "Delivery" the plan's scans produced or removed by their filters, over all their loops. */
function deliveryRowsRead(plan: unknown): number {
  let total = 0;
  const walk = (node: Record<string, unknown>) => {
    if (node["Relation Name"] === "Delivery" && /Scan/.test(String(node["Node Type"])))
      total += (Number(node["Actual Rows"] ?? 0) + Number(node["Rows Removed by Filter"] ?? 0)) * Number(node["Actual Loops"] ?? 1);
    for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
    for (const v of Object.values(node))
      if (v && typeof v === "object" && !Array.isArray(v) && "Node Type" in v) walk(v as Record<string, unknown>);
  };
  for (const top of plan as { Plan: Record<string, unknown> }[]) walk(top.Plan);
  return total;
}
