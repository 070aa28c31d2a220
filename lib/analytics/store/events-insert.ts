import { storedLanguage, type ClickEvent } from "../model.ts";
import type { Queryable } from "../../db/queryable.ts";

// Writing click events (analytics.click_event). Raw SQL, like every statement of the store: the
// table is partitioned (outside the Prisma models, see the migration) and a batch is one multi-row
// insert from arrays (unnest), which Prisma cannot express.

const INSERT_EVENTS = `insert into analytics.click_event
    (at, workspace_id, link_id, domain, target, country, city, referrer_host, referrer_url, device, browser, os, bot, qr, visitor,
     destination, language)
  select to_timestamp(t.at / 1000.0), t.workspace_id, t.link_id, t.domain, t.target, t.country, t.city, t.referrer_host,
         t.referrer_url, t.device, t.browser, t.os, t.bot, t.qr, t.visitor, t.destination, t.language
  from unnest($1::float8[], $2::int[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
              $9::text[], $10::text[], $11::text[], $12::text[], $13::bool[], $14::bool[], $15::int8[], $16::text[], $17::text[])
    as t(at, workspace_id, link_id, domain, target, country, city, referrer_host, referrer_url, device, browser, os, bot, qr, visitor,
         destination, language)`;

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

/** The 17 parameters of INSERT_EVENTS, one binary array per column. */
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
    // absent (a producer that does not know them) is stored as null, as the model says
    textArray(events, "destination"),
    textArray(events, "language", storedLanguage),
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

type TextKey =
  "domain" | "target" | "country" | "city" | "referrerHost" | "referrerUrl" | "device" | "browser" | "os" | "destination" | "language";

/**
 * A text[] whose elements repeat a lot (a domain, a browser name, a destination): each distinct
 * value is encoded once. `stored`: the value as the column keeps it (null: none).
 */
function textArray(events: ClickEvent[], key: TextKey, stored?: (v: string) => string | null): Buffer {
  const n = events.length;
  const encoded = new Array<Uint8Array | null>(n);
  const seen = new Map<string, Uint8Array>();
  let last: string | null = null;
  let lastBytes: Uint8Array | null = null;
  let bytes = 0;
  let hasNull = false;
  for (let i = 0; i < n; i++) {
    const given = events[i][key];
    const v = stored && given !== null && given !== undefined ? stored(given) : given;
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
