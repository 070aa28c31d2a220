import { inPgTransaction } from "../../db/pg-transaction.ts";
import type pg from "pg";
import type { Queryable } from "../../db/queryable.ts";

// The monthly partitions of analytics.click_event: one per calendar month (UTC), named
// click_event_yYYYYmMM. The partitions of this month and the next MONTHS_AHEAD exist before a click
// needs them (lib/analytics/jobs.ts makes them at start and every hour; a write makes its own too).

export const MONTHS_AHEAD = 2;

export type MonthKey = { year: number; month: number }; // month 1..12

export function monthOf(ms: number): MonthKey {
  const d = new Date(ms);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1 };
}

export function nextMonth(m: MonthKey): MonthKey {
  return m.month === 12 ? { year: m.year + 1, month: 1 } : { year: m.year, month: m.month + 1 };
}

export function partitionName(m: MonthKey): string {
  return `click_event_y${m.year}m${String(m.month).padStart(2, "0")}`;
}

const monthStart = (m: MonthKey) => `${m.year}-${String(m.month).padStart(2, "0")}-01 00:00:00+00`;

/** Creates the month's partition unless it exists. Serialised across processes by an advisory lock. */
export async function ensureMonthPartition(pool: pg.Pool, m: MonthKey): Promise<void> {
  await inPgTransaction(pool, async (client) => {
    await client.query("select pg_advisory_xact_lock(72120418)");
    // identifiers and bounds come from numbers only (partitionName, monthStart): nothing to inject
    await client.query(
      `create table if not exists analytics.${partitionName(m)} partition of analytics.click_event
       for values from ('${monthStart(m)}') to ('${monthStart(nextMonth(m))}')`,
    );
  });
}

/** The existing monthly partitions, oldest first. */
export async function listMonthPartitions(q: Queryable): Promise<MonthKey[]> {
  const { rows } = await q.query<{ name: string }>({
    name: "analytics_list_partitions",
    text: `select c.relname as name from pg_inherits i
           join pg_class c on c.oid = i.inhrelid
           join pg_class p on p.oid = i.inhparent
           join pg_namespace n on n.oid = p.relnamespace
           where n.nspname = 'analytics' and p.relname = 'click_event'`,
  });
  return rows
    .map((r) => /^click_event_y(\d{4})m(\d{2})$/.exec(r.name))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ year: Number(m[1]), month: Number(m[2]) }))
    .sort((a, b) => a.year - b.year || a.month - b.month);
}

export async function dropMonthPartition(q: Queryable, m: MonthKey): Promise<void> {
  await q.query(`drop table if exists analytics.${partitionName(m)}`);
}

export async function createComingPartitions(pool: pg.Pool, now = Date.now()): Promise<MonthKey[]> {
  const made: MonthKey[] = [];
  let m = monthOf(now);
  for (let i = 0; i <= MONTHS_AHEAD; i++, m = nextMonth(m)) {
    await ensureMonthPartition(pool, m);
    made.push(m);
  }
  return made;
}
