import { monthOf } from "../clock.ts";
import { database } from "../db/client.ts";
import { inPgTransaction } from "../db/pg-transaction.ts";
import { ServiceError } from "../errors.ts";
import { handOffAfterCommit } from "../events/index.ts";
import { recordEventSql } from "../events/sql.ts";
import { hasFeature, planOf } from "../plans/index.ts";
import { byTagName } from "../tags/service.ts";
import { tagKey } from "../tags/schemas.ts";
import { reserveLinkAllowance } from "./allowance.ts";
import { hashPasswords, linkColumns, precheckRows, prepareRows, type PreparedRow } from "./create-rows.ts";
import { dropNewLinks, insertLinks, newLinkIds, tagNewLinks } from "./create-sql.ts";
import type { LinkWorkspace } from "./lookup.ts";
import { linkValidation, parseLinkInput } from "./rules.ts";
import { BULK_MAX_PASSWORD_ROWS, createLinkSchema, type CreateLinkInput } from "./schemas.ts";
import { linkWithHost, webhookLink, type LinkWithHost } from "./serialize.ts";
import { insertDrawingCodes } from "./short-code.ts";

// Creating many links in one transaction (link.bulk_created), the bulk shape of create-plan.ts:
// the same insert, quota fragment and code retry as a single create (create.ts).

const BULK_EVENT_SIZE = 100;

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

  const deliveries: number[] = [];
  if (candidates.length > 0) {
    await inPgTransaction(database().prismaPool, async (tx) => {
      deliveries.length = 0;
      // Ids are taken first, in input order, so the links' order (ids, list pages) is the rows'
      // order even though they are inserted in code order. (One row needs no such care.)
      const ids = candidates.length < 2 ? [] : await newLinkIds(tx, candidates.length);
      const rows = candidates.map((c) => c.row);
      const inserted = await insertDrawingCodes(rows, (round) =>
        insertLinks(
          tx,
          round.map(({ i, code }) => ({ ...linkColumns(rows[i], code), id: ids[i] ?? null })),
        ),
      );
      const wanted = inserted.filter((l) => l !== "taken").length;
      const reservation = await reserveLinkAllowance(tx, workspace.id, plan.maxLinks, wanted, month);
      // What was left of the allowance before this request: rows past it fail with the quota error.
      let units = plan.maxLinks - (reservation.current - reservation.granted);
      const txQuota = ServiceError.quota("MaxLinks", plan.maxLinks, reservation.current);
      const kept: { link: LinkWithHost; tags: string[] }[] = [];
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
          kept.push({ link, tags: row.tags });
          results[index] = { index, status: 201, link };
        }
      });
      if (dropped.length) await dropNewLinks(tx, dropped);
      await tagKept(tx, workspace.id, kept);
      const count = Math.ceil(kept.length / BULK_EVENT_SIZE);
      for (let part = 0; part < count; part++) {
        const links = kept.slice(part * BULK_EVENT_SIZE, (part + 1) * BULK_EVENT_SIZE).map((k) => webhookLink(k.link));
        // A caller sending one part of a larger import (at most 100 rows) numbers it itself.
        const batch = options.batch && count === 1 ? options.batch : { index: part + 1, count };
        deliveries.push(...(await recordEventSql(tx, workspace, "link.bulk_created", { links, batch })));
      }
    });
    handOffAfterCommit(deliveries);
  }
  // (A row is refused for the allowance by the pre-check only when the pre-check read the allowance.)
  for (const index of overAllowance) results[index] = { index, status: 403, error: quota! };
  return results as BulkRowResult[];
}

/** Tags the kept links (creating missing tags) and sets their tag names, sorted as the API shows them. */
async function tagKept(tx: Parameters<typeof tagNewLinks>[0], workspaceId: number, kept: { link: LinkWithHost; tags: string[] }[]) {
  const pairs = kept.flatMap(({ link, tags }) => [...new Set(tags.map(tagKey))].map((key) => ({ linkId: link.id, key })));
  const tags = pairs.length
    ? await tagNewLinks(
        tx,
        workspaceId,
        kept.flatMap((k) => k.tags),
        pairs,
      )
    : new Map();
  for (const { link, tags: names } of kept)
    link.tagNames = [...new Set(names.map(tagKey))]
      .map((key) => tags.get(key)!)
      .sort(byTagName)
      .map((t) => t.name);
}

function tooManyPasswords(rows: number): ServiceError {
  return linkValidation([
    {
      path: "links",
      message: `at most ${BULK_MAX_PASSWORD_ROWS} links with a password may be created per request (this one has ${rows}); send the rest in another request`,
    },
  ]);
}
