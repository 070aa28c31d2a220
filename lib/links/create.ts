import { monthOf } from "../clock.ts";
import { database } from "../db/client.ts";
import { ServiceError } from "../errors.ts";
import type { Link } from "../db/generated/client.ts";
import { handOffAfterCommit } from "../events/index.ts";
import { eventWithHoles } from "../events/sql.ts";
import { planOf } from "../plans/index.ts";
import { byTagName } from "../tags/service.ts";
import { linkAllowanceUsed } from "./allowance.ts";
import { planCreate, type CreatePlan } from "./create-plan.ts";
import { hashPasswords, linkColumns, precheckRows, prepareRows, type PreparedRow } from "./create-rows.ts";
import { createStatement, CreateRefused } from "./create-sql.ts";
import type { LinkWorkspace } from "./lookup.ts";
import type { CreateLinkInput } from "./schemas.ts";
import { linkWithHost, webhookLink, type LinkWithHost } from "./serialize.ts";
import { insertDrawingCodes } from "./short-code.ts";
import type { NewLinkColumns } from "./sql.ts";

export { bulkCreateLinks, type BulkOptions, type BulkRowResult } from "./create-bulk.ts";

// Creating one link (link.created), in the shape planCreate (create-plan.ts) chooses. Cheap checks
// come before any password is hashed; the code index and the allowance row decide in the statement.

/** Creates one link (link.created). */
export async function createLink(workspace: LinkWorkspace, input: CreateLinkInput): Promise<LinkWithHost> {
  const plan = planOf(workspace.plan);
  const month = monthOf();
  const request = { links: 1 as const, alias: input.alias, password: input.password };
  const shape = planCreate(request, plan);
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
      return await createInOneStatement(workspace, row, shape, month, plan.maxLinks);
    } catch (e) {
      if (!(e instanceof CreateRefused)) throw e;
      if (e.reason === "quota") throw await quota();
      if (e.reason === "taken") throw ServiceError.aliasTaken(row.alias!);
      const checked = await checkAll();
      if (checked instanceof ServiceError) throw checked;
      // (the domain stopped being verified in between: go on with the row as now checked)
      row = checked;
    }
  }
}

/** The created link as answered: its host, and its tag names sorted as the API shows them. */
const created = (row: PreparedRow, link: Link & { tagNames: string[] }): LinkWithHost => ({
  ...linkWithHost(link, row.domain.host),
  tagNames: link.tagNames.sort((a, b) => byTagName({ name: a }, { name: b })),
});

/** link.created of the link `c` is to be, with its id and creation time (the event's too) left to its statement (create-sql.ts). */
function createdEvent(workspace: LinkWorkspace, row: PreparedRow, c: NewLinkColumns) {
  const unsaved = { ...c, id: 0, clicks: 0, createdAt: new Date(0), updatedAt: new Date(0) } as Link;
  // stamped with the link's createdAt: the event is never older than the change it reports
  return eventWithHoles(
    workspace,
    "link.created",
    2,
    (hole) => ({ link: { ...webhookLink(linkWithHost(unsaved, row.domain.host)), id: hole(0), createdOn: hole(1) } }),
    "statement",
  );
}

/**
 * The one statement: the link, its tags, its event (a plan with webhooks) and the allowance; a
 * refusal is thrown as CreateRefused, nothing written. The event's deliveries are handed off after.
 */
async function createInOneStatement(
  workspace: LinkWorkspace,
  row: PreparedRow,
  shape: CreatePlan,
  month: string,
  limit: number,
): Promise<LinkWithHost> {
  const options = { allowance: { month, limit }, tags: row.tags, destinationHosts: row.uncheckedHosts };
  let deliveries: number[] = [];
  const [r] = await insertDrawingCodes([row], async ([{ code }]) => {
    const c = linkColumns(row, code);
    try {
      const r = await createStatement(database().prismaPool, c, {
        ...options,
        event: shape.event ? createdEvent(workspace, row, c) : null,
      });
      deliveries = r.deliveries;
      return [{ ...r.link, tagNames: r.tagNames }];
    } catch (e) {
      // a taken generated code is drawn again; a taken alias is answered by the caller
      if (e instanceof CreateRefused && e.reason === "taken" && row.alias === undefined) return [];
      throw e;
    }
  });
  if (r === "taken") throw new CreateRefused("taken");
  handOffAfterCommit(deliveries);
  return created(row, r);
}
