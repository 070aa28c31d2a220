import { withEvents } from "../events/index.ts";
import type { Link } from "../db/generated/client.ts";
import { ServiceError } from "../errors.ts";
import { hasFeature, planOf } from "../plans/index.ts";
import { monthOf } from "../clock.ts";
import { reserveLinkAllowance } from "./allowance.ts";
import { createsInOneStatement, createUntaggedLink } from "./create-one.ts";
import { hashPasswords, precheckRows, prepareRows, tagNew, type PreparedRow } from "./create-rows.ts";
import type { LinkWorkspace } from "./lookup.ts";
import { linkValidation, parseLinkInput } from "./rules.ts";
import { BULK_MAX_PASSWORD_ROWS, createLinkSchema, type CreateLinkInput } from "./schemas.ts";
import { linkWithHost, webhookLink, type LinkWithHost } from "./serialize.ts";
import { insertWithCodes } from "./short-code.ts";

// Creating links, one (link.created) or many in one transaction (link.bulk_created). Cheap checks
// come before any password is hashed; the code index and the allowance row decide in the transaction.

const BULK_EVENT_SIZE = 100;

/** Creates one link (link.created). */
export async function createLink(workspace: LinkWorkspace, input: CreateLinkInput): Promise<LinkWithHost> {
  const plan = planOf(workspace.plan);
  const month = monthOf();
  const checkAll = () => prepareRows(workspace, [input]).then((r) => r[0]);
  // A create in one statement leaves the verified-domain read to its statement, unless it has a
  // password (whose hash, slow on purpose, comes only after every check). Any refusal is answered
  // by the full checks, so which error comes first never depends on the path.
  const deferred = createsInOneStatement(input, plan) && !input.password;
  let [row] = await prepareRows(workspace, [input], deferred ? "caller checks" : "read");
  if (row instanceof ServiceError && deferred) row = await checkAll();
  if (row instanceof ServiceError) throw row;
  if (row.password) {
    // Only a password makes the pre-check worth its reads: without one the transaction answers as fast.
    const { verdicts, quota } = await precheckRows(workspace, [row], month);
    if (verdicts[0] === "quota") throw quota;
    if (verdicts[0] === "taken") throw ServiceError.aliasTaken(row.alias!);
    await hashPasswords([row]);
  }
  // without tags: one transaction of raw statements (create-one.ts); tags are created through Prisma
  if (row.tags.length === 0) return createUntaggedLink({ workspace, row, plan, month, recheck: checkAll });
  return withEvents(async (tx, emit) => {
    const [inserted] = await insertWithCodes(tx, [row]);
    const link =
      inserted === "taken"
        ? null
        : {
            ...linkWithHost(inserted, row.domain.host),
            tagNames: await tagNew(tx, workspace, [inserted.id], [row.tags]).then((t) => t[0]),
          };
    if (link) await emit(workspace, "link.created", { link: webhookLink(link) });
    // The allowance is taken last: its row lock serializes the workspace's creates, so it is held
    // only from here to commit. A refusal rolls back the insert and the event with it.
    const reservation = await reserveLinkAllowance(tx, workspace.id, plan.maxLinks, 1, month);
    if (reservation.granted === 0) throw ServiceError.quota("MaxLinks", plan.maxLinks, reservation.current);
    if (!link) throw ServiceError.aliasTaken(row.alias!);
    return link;
  });
}

/**
 * batch: set by the app's CSV import, which sends an import of N rows as ceil(N/100) calls of at
 * most 100 rows; each call's event then says which part of the whole import it is.
 */
export type BulkOptions = { batch?: { index: number; count: number } };

/** A row's result; `error` is what a single create would have thrown (callers map it to a body). */
export type BulkRowResult =
  { index: number; status: 201; link: LinkWithHost } | { index: number; status: 400 | 403 | 409; error: ServiceError };

/**
 * Creates many links in one transaction and reports a result per row, in input order (index from 0).
 * Rows are taken in order as if one by one: each row that would pass the monthly allowance fails
 * with the quota error and no row after it is created. Events: link.bulk_created in parts of 100.
 * Passwords are hashed only for rows that passed every cheap check, at most BULK_MAX_PASSWORD_ROWS
 * of them: a request with more such rows is refused whole (400 validation) before anything is hashed.
 */
export async function bulkCreateLinks(workspace: LinkWorkspace, rows: unknown[], options: BulkOptions = {}): Promise<BulkRowResult[]> {
  const plan = planOf(workspace.plan);
  if (!hasFeature(plan, "BulkLinks")) throw ServiceError.feature("BulkLinks");
  const results: (BulkRowResult | undefined)[] = new Array(rows.length);
  const parsed: { index: number; input: CreateLinkInput }[] = [];
  rows.forEach((raw, index) => {
    try {
      parsed.push({ index, input: parseLinkInput(createLinkSchema, raw) });
    } catch (e) {
      if (!(e instanceof ServiceError)) throw e;
      results[index] = { index, status: 400, error: e };
    }
  });
  const prepared = await prepareRows(
    workspace,
    parsed.map((p) => p.input),
  );
  const checked: { index: number; row: PreparedRow }[] = [];
  prepared.forEach((p, k) => {
    const index = parsed[k].index;
    if (p instanceof ServiceError) results[index] = { index, status: p.code === "validation" ? 400 : 403, error: p };
    else checked.push({ index, row: p });
  });

  // Cheap checks before any password is hashed: rows over the allowance or with a taken alias are
  // answered now. Rows refused for the allowance get the transaction's quota error when it has one.
  const month = monthOf();
  const pre = await precheckRows(
    workspace,
    checked.map((c) => c.row),
    month,
  );
  let quota = pre.quota;
  const overAllowance: number[] = [];
  const candidates: { index: number; row: PreparedRow }[] = [];
  checked.forEach((c, k) => {
    const verdict = pre.verdicts[k];
    if (verdict === "quota") overAllowance.push(c.index);
    else if (verdict === "taken") results[c.index] = { index: c.index, status: 409, error: ServiceError.aliasTaken(c.row.alias!) };
    else candidates.push(c);
  });
  // One request hashes a bounded number of passwords (each takes a thread of the pool for ~50 ms):
  // more rows to hash than that refuses the whole request before anything is hashed or created.
  const toHash = candidates.filter((c) => c.row.password).length;
  if (toHash > BULK_MAX_PASSWORD_ROWS) throw tooManyPasswords(toHash);
  await hashPasswords(candidates.map((c) => c.row));

  if (candidates.length > 0) {
    await withEvents(
      async (tx, emit) => {
        const inserted = await insertWithCodes(
          tx,
          candidates.map((c) => c.row),
        );
        const wanted = inserted.filter((l) => l !== "taken").length;
        const reservation = await reserveLinkAllowance(tx, workspace.id, plan.maxLinks, wanted, month);
        // What was left of the allowance before this request: rows past it fail with the quota error.
        let units = plan.maxLinks - (reservation.current - reservation.granted);
        const txQuota = ServiceError.quota("MaxLinks", plan.maxLinks, reservation.current);
        const kept: LinkWithHost[] = [];
        const dropped: number[] = [];
        candidates.forEach(({ index, row }, k) => {
          const l = inserted[k];
          if (units <= 0) {
            // Parallel creates used the allowance since the pre-check: the database's count is the answer.
            quota = txQuota;
            results[index] = { index, status: 403, error: txQuota };
            if (l !== "taken") dropped.push(l.id);
          } else if (l === "taken") {
            results[index] = { index, status: 409, error: ServiceError.aliasTaken(row.alias!) };
          } else {
            units--;
            const link = linkWithHost(l, row.domain.host);
            kept.push(link);
            results[index] = { index, status: 201, link };
          }
        });
        if (dropped.length) await tx.link.deleteMany({ where: { id: { in: dropped } } });
        const tagsOf = new Map(candidates.map(({ row }, k) => [inserted[k] === "taken" ? -1 : (inserted[k] as Link).id, row.tags]));
        const names = await tagNew(
          tx,
          workspace,
          kept.map((l) => l.id),
          kept.map((l) => tagsOf.get(l.id) ?? []),
        );
        kept.forEach((l, k) => (l.tagNames = names[k]));
        const count = Math.ceil(kept.length / BULK_EVENT_SIZE);
        for (let part = 0; part < count; part++) {
          const links = kept.slice(part * BULK_EVENT_SIZE, (part + 1) * BULK_EVENT_SIZE).map(webhookLink);
          // A caller sending one part of a larger import (at most 100 rows) numbers it itself.
          const batch = options.batch && count === 1 ? options.batch : { index: part + 1, count };
          await emit(workspace, "link.bulk_created", { links, batch });
        }
      },
      { timeout: 60_000 },
    );
  }
  // (A row is refused for the allowance by the pre-check only when the pre-check read the allowance.)
  for (const index of overAllowance) results[index] = { index, status: 403, error: quota! };
  return results as BulkRowResult[];
}

function tooManyPasswords(rows: number): ServiceError {
  return linkValidation([
    {
      path: "links",
      message: `at most ${BULK_MAX_PASSWORD_ROWS} links with a password may be created per request (this one has ${rows}); send the rest in another request`,
    },
  ]);
}
