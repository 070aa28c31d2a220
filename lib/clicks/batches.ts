import type { Queryable } from "../db/queryable.ts";

// "ClickBatch": the ids of the click batches applied (lib/clicks owns it). The writer records a batch's
// id first in the batch's transaction (writer.ts): when the id is there already, an earlier attempt
// committed although its acknowledgement was lost (the journal then replays it), and the batch is
// skipped. Ids are kept for KEEP_DAYS, far longer than any outage the journal can hold.

const KEEP_DAYS = 30;

/**
 * Records `id` as applied, in the caller's transaction. False when it was recorded before: the
 * batch is in the database already and must not be written again.
 */
export async function claimClickBatch(q: Queryable, id: string): Promise<boolean> {
  const { rowCount } = await q.query({
    name: "clicks_claim_batch",
    text: `insert into "ClickBatch" (id) values ($1) on conflict (id) do nothing`,
    values: [id],
  });
  return rowCount === 1;
}

/** Forgets batch ids older than KEEP_DAYS (the writer calls it now and then). */
export async function pruneClickBatches(q: Queryable): Promise<number> {
  const { rowCount } = await q.query({
    name: "clicks_prune_batches",
    text: `delete from "ClickBatch" where "appliedAt" < now() - make_interval(days => $1)`,
    values: [KEEP_DAYS],
  });
  return rowCount ?? 0;
}
