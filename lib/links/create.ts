import { monthOf } from "../clock.ts";
import { database } from "../db/client.ts";
import { inPgTransaction } from "../db/pg-transaction.ts";
import { ServiceError } from "../errors.ts";
import type { Link } from "../db/generated/client.ts";
import { handOffAfterCommit } from "../events/index.ts";
import { recordEventSql } from "../events/sql.ts";
import { planOf } from "../plans/index.ts";
import { byTagName } from "../tags/service.ts";
import { linkAllowanceUsed, reserveLinkAllowance } from "./allowance.ts";
import { planCreate, type CreatePlan } from "./create-plan.ts";
import { hashPasswords, linkColumns, precheckRows, prepareRows, type PreparedRow } from "./create-rows.ts";
import { createStatement, CreateRefused } from "./create-sql.ts";
import type { LinkWorkspace } from "./lookup.ts";
import type { CreateLinkInput } from "./schemas.ts";
import { linkWithHost, webhookLink, type LinkWithHost } from "./serialize.ts";
import { insertDrawingCodes } from "./short-code.ts";

export { bulkCreateLinks, type BulkOptions, type BulkRowResult } from "./create-bulk.ts";

// Creating one link (link.created), in the shape planCreate (create-plan.ts) chooses. Cheap checks
// come before any password is hashed; the code index and the allowance row decide in the statement.

/** Creates one link (link.created). */
export async function createLink(workspace: LinkWorkspace, input: CreateLinkInput): Promise<LinkWithHost> {
  const plan = planOf(workspace.plan);
  const month = monthOf();
  const request = { links: 1 as const, alias: input.alias, password: input.password };
  let shape = planCreate(request, plan);
  const checkAll = () => prepareRows(workspace, [input]).then((r) => r[0]);
  // A destination left to the statement is answered, when refused, by the full checks: which error
  // comes first never depends on the shape.
  let [row] = await prepareRows(workspace, [input], shape.destinations === "statement" ? "caller checks" : "read");
  if (row instanceof ServiceError && shape.destinations === "statement") row = await checkAll();
  if (row instanceof ServiceError) throw row;
  if (row.password) {
    // Only a password makes the pre-check worth its reads: without one the statement answers as fast.
    const { verdicts, quota } = await precheckRows(workspace, [row], month);
    if (verdicts[0] === "quota") throw quota;
    if (verdicts[0] === "taken") throw ServiceError.aliasTaken(row.alias!);
    await hashPasswords([row]);
  }
  const quota = async () => ServiceError.quota("MaxLinks", plan.maxLinks, await linkAllowanceUsed(workspace.id, month));
  if (shape.shape === "refused")
    throw (await linkAllowanceUsed(workspace.id, month)) >= plan.maxLinks ? await quota() : ServiceError.aliasTaken(row.alias!);
  for (;;) {
    try {
      if (shape.shape === "transaction") return await createWithEvent(workspace, row, month);
      return await createInOneStatement(row, shape, month, plan.maxLinks);
    } catch (e) {
      if (!(e instanceof CreateRefused)) throw e;
      if (e.reason === "endpoint") shape = planCreate({ ...request, endpoint: true }, plan);
      else if (e.reason === "quota") throw await quota();
      else if (e.reason === "taken") throw ServiceError.aliasTaken(row.alias!);
      else {
        const checked = await checkAll();
        if (checked instanceof ServiceError) throw checked;
        // (the domain stopped being verified in between: go on with the row as now checked)
        row = checked;
      }
    }
  }
}

/** The created link as answered: its host, and its tag names sorted as the API shows them. */
const created = (row: PreparedRow, link: Link & { tagNames: string[] }): LinkWithHost => ({
  ...linkWithHost(link, row.domain.host),
  tagNames: link.tagNames.sort((a, b) => byTagName({ name: a }, { name: b })),
});

/** The one statement (guarded or not); a refusal is thrown as CreateRefused, nothing written. */
async function createInOneStatement(row: PreparedRow, shape: CreatePlan, month: string, limit: number): Promise<LinkWithHost> {
  const options = { allowance: { month, limit }, guard: shape.guarded, tags: row.tags, destinationHosts: row.uncheckedHosts };
  const [r] = await insertDrawingCodes([row], async ([{ code }]) => {
    try {
      const r = await createStatement(database().prismaPool, linkColumns(row, code), options);
      return r ? [{ ...r.link, tagNames: r.tagNames }] : [];
    } catch (e) {
      // a taken generated code is drawn again; a taken alias is answered by the caller
      if (e instanceof CreateRefused && e.reason === "taken" && row.alias === undefined) return [];
      throw e;
    }
  });
  if (r === "taken") throw new CreateRefused("taken");
  return created(row, r);
}

/**
 * One transaction: the link and its tags, the event with its deliveries (lib/events), then the
 * allowance last, so its row lock is held only from there to commit. A refusal rolls back all.
 */
async function createWithEvent(workspace: LinkWorkspace, row: PreparedRow, month: string): Promise<LinkWithHost> {
  const plan = planOf(workspace.plan);
  const deliveries: number[] = [];
  const link = await inPgTransaction(database().prismaPool, async (client) => {
    deliveries.length = 0;
    const options = { allowance: null, guard: false, tags: row.tags, destinationHosts: row.uncheckedHosts };
    const [r] = await insertDrawingCodes([row], async ([{ code }]) => {
      const r = await createStatement(client, linkColumns(row, code), options);
      return r ? [{ ...r.link, tagNames: r.tagNames }] : [];
    });
    const link = r === "taken" ? null : created(row, r);
    if (link) deliveries.push(...(await recordEventSql(client, workspace, "link.created", { link: webhookLink(link) })));
    const reservation = await reserveLinkAllowance(client, workspace.id, plan.maxLinks, 1, month);
    if (reservation.granted === 0) throw ServiceError.quota("MaxLinks", plan.maxLinks, reservation.current);
    if (!link) throw ServiceError.aliasTaken(row.alias!);
    return link;
  });
  handOffAfterCommit(deliveries);
  return link;
}
