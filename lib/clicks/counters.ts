import type { ClickEvent } from "../analytics/model.ts";
import type { Queryable } from "../db/queryable.ts";

// The one writer of "Link".clicks: a capped link is counted on the request path (countCappedClick,
// exact under races, lib/redirects/http.ts), the uncapped ones in the flush's transaction
// (addLinkClicks, writer.ts), and so are a capped link's clicks let through while the database
// could not count them (addCappedClicks: held at the cap, pipeline.ts). Statement names keep their
// redirect_ prefix: they are what the database's statistics have always called them.

/**
 * One click on a capped link, atomically: counted only while below the cap, so parallel requests
 * in any number of processes can never push clicks past maxClicks. Returns the link's count after
 * it, or null when the cap is reached (or the link is gone).
 */
export async function countCappedClick(q: Queryable, linkId: number): Promise<number | null> {
  const { rows } = await q.query<{ clicks: number }>({
    name: "redirect_count_capped_click",
    text: `update "Link" set clicks = clicks + 1
           where id = $1 and ("maxClicks" is null or clicks < "maxClicks")
           returning clicks`,
    values: [linkId],
  });
  return rows[0]?.clicks ?? null;
}

/** The stored count (HEAD on a capped link asks this instead of counting). */
export async function readClicks(q: Queryable, linkId: number): Promise<number | null> {
  const { rows } = await q.query<{ clicks: number }>({
    name: "redirect_read_clicks",
    text: `select clicks from "Link" where id = $1`,
    values: [linkId],
  });
  return rows[0]?.clicks ?? null;
}

/**
 * Adds a batch's clicks to "Link".clicks of uncapped links (capped links were counted on the request
 * path), inside the click pipeline's transaction (`q` is its connection). Links deleted meanwhile are
 * skipped; a link that got a cap after its clicks were counted is held at the cap.
 */
export async function addLinkClicks(q: Queryable, totals: Map<number, number>): Promise<void> {
  if (!totals.size) return;
  const ids: number[] = [];
  const counts: number[] = [];
  for (const [id, n] of [...totals].sort((a, b) => a[0] - b[0])) {
    ids.push(id);
    counts.push(n);
  }
  await q.query({
    name: "redirect_flush_totals",
    text: `update "Link" as l
               set clicks = case when l."maxClicks" is null then l.clicks + b.n
                                 else least(l.clicks + b.n, greatest(l."maxClicks", l.clicks)) end
               from unnest($1::int[], $2::int[]) as b(id, n)
               where l.id = b.id`,
    values: [ids, counts],
  });
}

/**
 * Adds clicks of capped links that were let through from what the process knew while the database
 * could not count them (the click pipeline's held clicks, pipeline.ts), inside the flush's
 * transaction: each link is held at its cap as countCappedClick would have held it. Returns per
 * link how many were added and its count after; a link deleted meanwhile is not in the result.
 */
export async function addCappedClicks(q: Queryable, capped: Map<number, number>): Promise<Map<number, { added: number; clicks: number }>> {
  if (!capped.size) return new Map();
  const entries = [...capped].sort((a, b) => a[0] - b[0]);
  const { rows } = await q.query<{ id: number; added: number; clicks: number }>({
    name: "clicks_add_capped",
    text: `with b as (select id, n from unnest($1::int[], $2::int[]) as b(id, n)),
           before as (select l.id, l.clicks from "Link" l join b on b.id = l.id order by l.id for update of l)
           update "Link" as l
              set clicks = case when l."maxClicks" is null then l.clicks + b.n
                                else greatest(l.clicks, least(l.clicks + b.n, l."maxClicks")) end
             from b join before on before.id = b.id
            where l.id = b.id
           returning l.id, (l.clicks - before.clicks)::int as added, l.clicks`,
    values: [entries.map((e) => e[0]), entries.map((e) => e[1])],
  });
  return new Map(rows.map((r) => [r.id, { added: r.added, clicks: r.clicks }]));
}

/**
 * Whether an error of one of these statements means the database could not be asked (down,
 * restarting, unreachable: no SQLSTATE, or a connection, resources or operator-intervention class),
 * as opposed to an answer about the statement itself. The redirect then decides a capped click
 * from what the process knows (pipeline.ts addHeld).
 */
export function databaseUnreachable(e: unknown): boolean {
  const code = (e as { code?: unknown })?.code;
  return typeof code !== "string" || !/^\d\d[0-9A-Z]{3}$/.test(code) || /^(08|53|57)/.test(code);
}

/**
 * Stamps "Link"."lastClickedAt" with the newest counted click (bots are not clicks) of each link in
 * a batch, inside the flush's transaction; never moves it back (a replayed journal batch is older).
 * The Links page sorts by it (lib/links/list-page.ts).
 */
export async function stampLastClicks(q: Queryable, events: readonly Pick<ClickEvent, "linkId" | "at" | "bot">[]): Promise<void> {
  const newest = new Map<number, number>();
  for (const e of events) if (!e.bot && (newest.get(e.linkId) ?? -Infinity) < e.at) newest.set(e.linkId, e.at);
  if (!newest.size) return;
  const rows = [...newest].sort((a, b) => a[0] - b[0]);
  await q.query({
    name: "clicks_stamp_last_click",
    text: `update "Link" as l
               set "lastClickedAt" = greatest(l."lastClickedAt", to_timestamp(b.at / 1000.0))
               from unnest($1::int[], $2::float8[]) as b(id, at)
               where l.id = b.id`,
    values: [rows.map((r) => r[0]), rows.map((r) => r[1])],
  });
}
