import type { Queryable } from "../../db/queryable.ts";

// The daily visitor salts (analytics.visitor_salt; lib/analytics/ingest/visitor.ts says why).

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
