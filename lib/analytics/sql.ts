import type pg from "pg";

// Every SQL statement of the PostgreSQL click store, one named function each. Raw SQL because the
// table is partitioned (outside the Prisma models, see the migration) and because a batch is one
// multi-row insert from arrays (unnest), which Prisma cannot express.

export type Queryable = Pick<pg.Pool, "query">;

export const TARGET_KINDS = ["destination", "ios", "android", "geo"] as const;
export type TargetKind = (typeof TARGET_KINDS)[number];

/** One stored click event (see prisma/migrations/*_click_events). */
export type ClickEvent = {
  at: number; // unix ms
  workspaceId: number;
  linkId: number;
  domain: string;
  target: TargetKind;
  country: string | null;
  city: string | null;
  referrerHost: string | null;
  referrerUrl: string | null;
  device: string;
  browser: string | null;
  os: string | null;
  bot: boolean;
  qr: boolean;
  /** signed 64-bit visitor key in decimal */
  visitor: string;
};

const INSERT_EVENTS = `insert into analytics.click_event
    (at, workspace_id, link_id, domain, target, country, city, referrer_host, referrer_url, device, browser, os, bot, qr, visitor)
  select to_timestamp(t.at / 1000.0), t.workspace_id, t.link_id, t.domain, t.target, t.country, t.city, t.referrer_host,
         t.referrer_url, t.device, t.browser, t.os, t.bot, t.qr, t.visitor
  from unnest($1::float8[], $2::int[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
              $9::text[], $10::text[], $11::text[], $12::text[], $13::bool[], $14::bool[], $15::int8[])
    as t(at, workspace_id, link_id, domain, target, country, city, referrer_host, referrer_url, device, browser, os, bot, qr, visitor)`;

/**
 * Inserts a batch in one statement (one array per column); rows go to their month's partition.
 * The arrays are sent in PostgreSQL's binary format (the driver sends a Buffer as binary): with
 * ~30,000 events a second, quoting and escaping every element as text (the driver's conversion) and
 * parsing it back in PostgreSQL were a large part of a flush's CPU on both sides.
 */
export async function insertClickEvents(q: Queryable, events: ClickEvent[]): Promise<number> {
  if (!events.length) return 0;
  const { rowCount } = await q.query({ name: "analytics_insert_events", text: INSERT_EVENTS, values: eventColumns(events) });
  return rowCount ?? 0;
}

// PostgreSQL's binary array format (array_recv): ndim, has-nulls flag, element type, then per
// dimension its size and lower bound; then each element as a 4-byte length (-1 = NULL) and its bytes.
const OID = { bool: 16, int8: 20, int4: 23, text: 25, float8: 701 } as const;
const HEADER = 20;

/** A one-dimensional binary array of n elements taking elementBytes after the header, and a view to write them. */
function arrayBuffer(oid: number, n: number, elementBytes: number, hasNull: boolean): { buf: Buffer; view: DataView } {
  const buf = Buffer.allocUnsafe(HEADER + elementBytes);
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  view.setInt32(0, 1);
  view.setInt32(4, hasNull ? 1 : 0);
  view.setInt32(8, oid);
  view.setInt32(12, n);
  view.setInt32(16, 1);
  return { buf, view };
}

/** The 15 parameters of INSERT_EVENTS, one binary array per column. */
export function eventColumns(events: ClickEvent[]): Buffer[] {
  const n = events.length;
  const at = arrayBuffer(OID.float8, n, n * 12, false);
  const workspace = arrayBuffer(OID.int4, n, n * 8, false);
  const link = arrayBuffer(OID.int4, n, n * 8, false);
  const visitor = arrayBuffer(OID.int8, n, n * 12, false);
  const bot = arrayBuffer(OID.bool, n, n * 5, false);
  const qr = arrayBuffer(OID.bool, n, n * 5, false);
  for (let i = 0, o4 = HEADER, o8 = HEADER, o1 = HEADER; i < n; i++, o4 += 8, o8 += 12, o1 += 5) {
    const e = events[i];
    at.view.setInt32(o8, 8);
    at.view.setFloat64(o8 + 4, e.at);
    workspace.view.setInt32(o4, 4);
    workspace.view.setInt32(o4 + 4, int32(e.workspaceId));
    link.view.setInt32(o4, 4);
    link.view.setInt32(o4 + 4, int32(e.linkId));
    visitor.view.setInt32(o8, 8);
    visitor.view.setBigInt64(o8 + 4, int64(e.visitor));
    bot.view.setInt32(o1, 1);
    bot.view.setUint8(o1 + 4, e.bot ? 1 : 0);
    qr.view.setInt32(o1, 1);
    qr.view.setUint8(o1 + 4, e.qr ? 1 : 0);
  }
  return [
    at.buf,
    workspace.buf,
    link.buf,
    textArray(events, "domain"),
    textArray(events, "target"),
    textArray(events, "country"),
    textArray(events, "city"),
    textArray(events, "referrerHost"),
    textArray(events, "referrerUrl"),
    textArray(events, "device"),
    textArray(events, "browser"),
    textArray(events, "os"),
    bot.buf,
    qr.buf,
    visitor.buf,
  ];
}

function int32(v: number): number {
  if (!Number.isInteger(v) || v < -0x80000000 || v > 0x7fffffff) throw new RangeError(`not a 32-bit integer: ${v}`);
  return v;
}

function int64(decimal: string): bigint {
  const v = BigInt(decimal);
  if (BigInt.asIntN(64, v) !== v) throw new RangeError(`not a 64-bit integer: ${decimal}`);
  return v;
}

type TextKey = "domain" | "target" | "country" | "city" | "referrerHost" | "referrerUrl" | "device" | "browser" | "os";

/** A text[] whose elements repeat a lot (a domain, a browser name): each distinct value is encoded once. */
function textArray(events: ClickEvent[], key: TextKey): Buffer {
  const n = events.length;
  const encoded = new Array<Uint8Array | null>(n);
  const seen = new Map<string, Uint8Array>();
  let last: string | null = null;
  let lastBytes: Uint8Array | null = null;
  let bytes = 0;
  let hasNull = false;
  for (let i = 0; i < n; i++) {
    const v = events[i][key];
    if (v === null || v === undefined) {
      encoded[i] = null;
      hasNull = true;
      bytes += 4;
      continue;
    }
    if (v !== last) {
      let b = seen.get(v);
      if (!b) {
        b = Buffer.from(v, "utf8");
        if (seen.size < 10_000) seen.set(v, b);
      }
      last = v;
      lastBytes = b;
    }
    encoded[i] = lastBytes;
    bytes += 4 + lastBytes!.length;
  }
  const { buf, view } = arrayBuffer(OID.text, n, bytes, hasNull);
  let o = HEADER;
  for (let i = 0; i < n; i++) {
    const b = encoded[i];
    if (b === null) {
      view.setInt32(o, -1);
      o += 4;
    } else {
      const len = b.length;
      view.setInt32(o, len);
      o += 4;
      // short values (most are) copy faster in a loop than through a native call
      if (len <= 64) for (let k = 0; k < len; k++) buf[o + k] = b[k];
      else buf.set(b, o);
      o += len;
    }
  }
  return buf;
}

// ---- partitions: one per calendar month (UTC), named click_event_yYYYYmMM ----

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
  const client = await pool.connect();
  try {
    await client.query("begin");
    await client.query("select pg_advisory_xact_lock(72120418)");
    // identifiers and bounds come from numbers only (partitionName, monthStart): nothing to inject
    await client.query(
      `create table if not exists analytics.${partitionName(m)} partition of analytics.click_event
       for values from ('${monthStart(m)}') to ('${monthStart(nextMonth(m))}')`,
    );
    await client.query("commit");
  } catch (e) {
    await client.query("rollback").catch(() => {});
    throw e;
  } finally {
    client.release();
  }
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

// ---- retention ----

/**
 * Deletes the events older than their workspace's retention: `days[i]` for workspaces on
 * `planIds[i]`, `fallbackDays` for any other plan id. Returns the number of rows deleted.
 */
export async function deleteExpiredEvents(
  q: Queryable,
  planIds: string[],
  days: number[],
  fallbackDays: number,
  now = new Date(),
): Promise<number> {
  const { rowCount } = await q.query({
    name: "analytics_delete_expired",
    text: `delete from analytics.click_event e
           using (select w.id, coalesce(p.days, $3::int) as days
                  from "Workspace" w left join unnest($1::text[], $2::int[]) as p(id, days) on p.id = w.plan) r
           where e.workspace_id = r.id and e.at < $4::timestamptz - make_interval(days => r.days)`,
    values: [planIds, days, fallbackDays, now],
  });
  return rowCount ?? 0;
}

/** Deletes the events of workspaces that no longer exist. */
export async function deleteOrphanEvents(q: Queryable): Promise<number> {
  const { rowCount } = await q.query({
    name: "analytics_delete_orphans",
    text: `delete from analytics.click_event e where not exists (select 1 from "Workspace" w where w.id = e.workspace_id)`,
  });
  return rowCount ?? 0;
}

// ---- visitor salts ----

/** The day's salt: `candidate` when this call creates it, else the one stored first. */
export async function loadVisitorSalt(q: Queryable, day: number, candidate: Buffer): Promise<Buffer> {
  const { rows } = await q.query<{ salt: Buffer }>({
    name: "analytics_visitor_salt",
    text: `with made as (
             insert into analytics.visitor_salt (day, salt) values (date '1970-01-01' + $1::int, $2)
             on conflict (day) do nothing returning salt)
           select salt from made union all
           select salt from analytics.visitor_salt where day = date '1970-01-01' + $1::int
           limit 1`,
    values: [day, candidate],
  });
  return rows[0].salt;
}

export async function pruneVisitorSalts(q: Queryable, keepFromDay: number): Promise<void> {
  await q.query({
    name: "analytics_prune_salts",
    text: `delete from analytics.visitor_salt where day < date '1970-01-01' + $1::int`,
    values: [keepFromDay],
  });
}
