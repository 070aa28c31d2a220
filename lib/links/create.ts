import { monthOf } from "../clock.ts";
import { database } from "../db/client.ts";
import { ServiceError } from "../errors.ts";
import type { Link } from "../db/generated/client.ts";
import { handOffAfterCommit } from "../events/index.ts";
import { eventWithHoles } from "../events/sql.ts";
import { planOf } from "../plans/index.ts";
import type { LiveKeyRate } from "../ratelimit/index.ts";
import { byTagName } from "../tags/service.ts";
import { linkAllowanceUsed } from "./allowance.ts";
import { planCreate, type CreatePlan } from "./create-plan.ts";
import { hashPasswords, linkColumns, prepareRows, type PreparedRow } from "./create-rows.ts";
import { createStatement, CreateRefused, precheckStatement, RateStopped, type Prechecked } from "./create-sql.ts";
import type { LinkWorkspace } from "./lookup.ts";
import { cheapVerdicts } from "./rules.ts";
import type { CreateLinkInput } from "./schemas.ts";
import { linkWithHost, webhookLink, type LinkWithHost } from "./serialize.ts";
import { insertDrawingCodes } from "./short-code.ts";
import type { NewLinkColumns } from "./sql.ts";

export { bulkCreateLinks, type BulkOptions, type BulkRowResult } from "./create-bulk.ts";

// Creating one link (link.created), in the shape planCreate (create-plan.ts) chooses. Cheap checks
// come before any password is hashed (one pre-check statement); the code index and the allowance row
// decide in the create's statement.
// An API request on a plan with a rate may be counted in the create's statement
// (createLinkCountingRate): one round trip for both.

/** Creates one link (link.created). */
export async function createLink(workspace: LinkWorkspace, input: CreateLinkInput): Promise<LinkWithHost> {
  const plan = planOf(workspace.plan);
  const month = monthOf();
  const shape = planCreate({ links: 1, alias: input.alias, password: input.password }, plan);
  const row = await prepareRow(workspace, input, shape);
  if (shape.shape === "refused")
    throw (await linkAllowanceUsed(workspace.id, month)) >= plan.maxLinks
      ? await quotaError(workspace, month)
      : ServiceError.aliasTaken(row.alias!);
  if (shape.precheck) return createWithPassword(workspace, input, row, shape, month, await precheck(workspace, row, month, null));
  return createAfterRefusals(workspace, input, row, shape, month);
}

/** A create whose request was counted in its statement, or is still to be counted (and then answered by `link`). */
export type CountedCreate = {
  /** the statement's count (null: nothing counted, the key is no longer live); "not counted": count the request on its own */
  rateCount: number | null | "not counted";
  /** the created link, or the create's refusal (thrown); only once the count allows the request */
  link: () => Promise<LinkWithHost>;
};

/**
 * createLink for an API request on a plan with a rate, counted against its key in the create's
 * statement when planCreate says so (its rate "in statement"); null when not: the caller counts
 * the request on its own and calls createLink. Nothing is written unless the count allows it. A
 * refusal in the statement (which rolls the count back with the rest) comes back "not counted":
 * `link` then answers it, or finishes the create, once the request has been counted. A refusal
 * before the statement is thrown (nothing counted either: lib/api/handler.ts counts, then answers it).
 */
export async function createLinkCountingRate(
  workspace: LinkWorkspace,
  input: CreateLinkInput,
  rate: LiveKeyRate,
): Promise<CountedCreate | null> {
  const plan = planOf(workspace.plan);
  const month = monthOf();
  const shape = planCreate({ links: 1, alias: input.alias, password: input.password, rated: true }, plan);
  if (shape.rate !== "in statement") return null;
  const row = await prepareRow(workspace, input, shape);
  const stopped = (e: RateStopped) => ({
    rateCount: e.rateCount,
    link: () => Promise.reject(new Error("the rate did not allow this create")),
  });
  if (shape.precheck) {
    // counted in the pre-check, which a refusal found there does not undo: `link` answers it
    try {
      const checked = await precheck(workspace, row, month, rate);
      return { rateCount: checked.rateCount, link: () => createWithPassword(workspace, input, row, shape, month, checked) };
    } catch (e) {
      if (e instanceof RateStopped) return stopped(e);
      throw e;
    }
  }
  try {
    const made = await createInOneStatement(workspace, row, shape, month, plan.maxLinks, rate);
    return { rateCount: made.rateCount, link: async () => made.link };
  } catch (e) {
    if (e instanceof RateStopped) return stopped(e);
    if (!(e instanceof CreateRefused)) throw e;
    return { rateCount: "not counted", link: () => createAfterRefusals(workspace, input, row, shape, month, e) };
  }
}

/** Validation, features and the destinations as the shape leaves them; a refusal is thrown. */
async function prepareRow(workspace: LinkWorkspace, input: CreateLinkInput, shape: CreatePlan): Promise<PreparedRow> {
  let [row] = await prepareRows(workspace, [input], shape.destinations === "statement" ? "caller checks" : "read");
  // A destination left to the statement is answered, when refused, by the full checks: which error
  // comes first never depends on the shape.
  if (row instanceof ServiceError && shape.destinations === "statement") [row] = await prepareRows(workspace, [input]);
  if (row instanceof ServiceError) throw row;
  return row;
}

const quotaError = async (workspace: LinkWorkspace, month: string) => {
  const plan = planOf(workspace.plan);
  return ServiceError.quota("MaxLinks", plan.maxLinks, await linkAllowanceUsed(workspace.id, month));
};

/** precheckStatement for the row (its alias, if any, on its domain) in the workspace's month, counting `rate` when given. */
const precheck = (workspace: LinkWorkspace, row: PreparedRow, month: string, rate: LiveKeyRate | null) =>
  precheckStatement(database().prismaPool, {
    workspaceId: workspace.id,
    month,
    destinationHosts: row.uncheckedHosts,
    alias: row.alias === undefined ? null : { domainKey: row.domain.domainKey, code: row.alias },
    rate,
  });

/**
 * A create with a password once pre-checked: the first refusal found, in the create's order (a
 * destination refused there is checked in full: its domain may have stopped being verified since);
 * else the hash, then the create's one statement, which decides again.
 */
async function createWithPassword(
  workspace: LinkWorkspace,
  input: CreateLinkInput,
  row: PreparedRow,
  shape: CreatePlan,
  month: string,
  checked: Prechecked,
): Promise<LinkWithHost> {
  if (checked.destination) {
    const [full] = await prepareRows(workspace, [input]);
    if (full instanceof ServiceError) throw full;
    row = full;
  }
  const limit = planOf(workspace.plan).maxLinks;
  const alias = row.alias === undefined ? null : row.alias;
  const { verdicts, current } = cheapVerdicts([alias], () => checked.taken, checked.used, limit);
  if (verdicts[0] === "quota") throw ServiceError.quota("MaxLinks", limit, current);
  if (verdicts[0] === "taken") throw ServiceError.aliasTaken(row.alias!);
  await hashPasswords([row]);
  return createAfterRefusals(workspace, input, row, shape, month);
}

/**
 * The one statement until it creates the link (a destination refused by it is checked in full, and
 * the create goes on when the domain stopped being verified in between), with no rate; `refused`:
 * what a first statement (with the rate) refused.
 */
async function createAfterRefusals(
  workspace: LinkWorkspace,
  input: CreateLinkInput,
  row: PreparedRow,
  shape: CreatePlan,
  month: string,
  refused?: CreateRefused,
): Promise<LinkWithHost> {
  for (;;) {
    if (refused) {
      if (refused.reason === "quota") throw await quotaError(workspace, month);
      if (refused.reason === "taken") throw ServiceError.aliasTaken(row.alias!);
      const [checked] = await prepareRows(workspace, [input]);
      if (checked instanceof ServiceError) throw checked;
      // (the domain stopped being verified in between: go on with the row as now checked)
      row = checked;
    }
    try {
      return (await createInOneStatement(workspace, row, shape, month, planOf(workspace.plan).maxLinks, null)).link;
    } catch (e) {
      if (!(e instanceof CreateRefused)) throw e;
      refused = e;
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
 * The one statement: the link, its tags, its event (a plan with webhooks), the allowance and, with
 * `rate`, the request's count; a refusal is thrown as CreateRefused, a count that does not allow
 * the create as RateStopped, nothing written. The event's deliveries are handed off after.
 */
async function createInOneStatement(
  workspace: LinkWorkspace,
  row: PreparedRow,
  shape: CreatePlan,
  month: string,
  limit: number,
  rate: LiveKeyRate | null,
): Promise<{ link: LinkWithHost; rateCount: number | null }> {
  const options = { allowance: { month, limit }, tags: row.tags, destinationHosts: row.uncheckedHosts, rate };
  let deliveries: number[] = [];
  let deliveryEndpoints: number[] = [];
  let rateCount: number | null = null;
  const [r] = await insertDrawingCodes([row], async ([{ code }]) => {
    const c = linkColumns(row, code);
    try {
      const r = await createStatement(database().prismaPool, c, {
        ...options,
        event: shape.event ? createdEvent(workspace, row, c) : null,
      });
      deliveries = r.deliveries;
      deliveryEndpoints = r.deliveryEndpoints;
      rateCount = r.rateCount;
      return [{ ...r.link, tagNames: r.tagNames }];
    } catch (e) {
      // a taken generated code is drawn again; a taken alias is answered by the caller
      if (e instanceof CreateRefused && e.reason === "taken" && row.alias === undefined) return [];
      throw e;
    }
  });
  if (r === "taken") throw new CreateRefused("taken");
  handOffAfterCommit(deliveries, deliveryEndpoints);
  return { link: created(row, r), rateCount };
}
