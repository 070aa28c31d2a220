import type { ClickEvent } from "../analytics/model.ts";
import type { Queryable } from "../db/queryable.ts";

// The one writer of "Link".clicks: a capped link is counted on the request path (countCappedClick,
// exact under races, lib/redirects/http.ts), the uncapped ones in the flush's transaction
// (addLinkClicks, writer.ts). Statement names keep their redirect_ prefix: they are what the
// database's statistics have always called them.

/**
 * One click on a capped link, atomically: counted only while below the cap, so parallel requests
 * in any number of processes can never push clicks past maxClicks. Returns false when the cap is
 * reached (or the link is gone).
 */
export async function countCappedClick(q: Queryable, linkId: number): Promise<boolean> {
  const { rowCount } = await q.query({
    name: "redirect_count_capped_click",
    text: `update "Link" set clicks = clicks + 1
           where id = $1 and ("maxClicks" is null or clicks < "maxClicks")`,
    values: [linkId],
  });
  return rowCount === 1;
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
