import { database } from "../db/client.ts";
import { inPgTransaction } from "../db/pg-transaction.ts";
import { ServiceError } from "../errors.ts";
import { handOffAfterCommit } from "../events/index.ts";
import { recordEventSql } from "../events/sql.ts";
import { webhooksAllowed, type Plan } from "../plans/index.ts";
import { linkAllowanceUsed, reserveLinkAllowance } from "./allowance.ts";
import { insertLinkReservingAllowance } from "./create-sql.ts";
import type { PreparedRow } from "./create-rows.ts";
import type { LinkWorkspace } from "./lookup.ts";
import { linkWithHost, webhookLink, type LinkWithHost } from "./serialize.ts";
import { CODE_ATTEMPTS, generateCode, isReservedAlias } from "./short-code.ts";
import { insertLink, type NewLinkColumns } from "./sql.ts";

// A single create without tags (the API's POST /api/v1/links, and the app's) on raw `pg`
// statements; Prisma's interactive transaction costs several times the CPU of these statements
// (`npm run bench:api`). The rules are the ones of a create with tags (create.ts): the code index
// decides a taken code, the allowance row is taken last so its lock, which serializes the
// workspace's creates, is held as briefly as possible, and a refusal leaves nothing behind.
//
// On a plan without webhooks (no event to record) the create is ONE statement (create-sql.ts): the
// insert and the allowance, both or neither, in its own implicit transaction. With an event to
// record it is one transaction: begin, the insert, the event with its deliveries (one statement),
// the allowance, commit (the event's body carries the inserted row, so it cannot be in the
// insert's statement).

/**
 * Whether a single create of this input (or row) on this plan is the one statement: no tags, no
 * event to record, an alias that is not a reserved path (refused without a statement) and an
 * allowance of at least one.
 */
export function createsInOneStatement(input: { tags?: string[] | null; alias?: string | null }, plan: Plan): boolean {
  return (
    !input.tags?.length &&
    !webhooksAllowed(plan) &&
    plan.maxLinks >= 1 &&
    !(typeof input.alias === "string" && isReservedAlias(input.alias))
  );
}

/**
 * A single create without tags: the row, its workspace, plan and month (of the allowance), and
 * `recheck`, which prepares the row again with every check (for the answer when the one statement
 * refuses a destination: a row prepared with its verified-domain check left to the insert,
 * uncheckedHosts, must take the one statement).
 */
export type UntaggedCreate = {
  workspace: LinkWorkspace;
  row: PreparedRow;
  plan: Plan;
  month: string;
  recheck: () => Promise<PreparedRow | ServiceError>;
};

/** Creates the row's link (link.created). */
export async function createUntaggedLink(create: UntaggedCreate): Promise<LinkWithHost> {
  const { workspace, row, plan, month } = create;
  if (createsInOneStatement(row, plan)) return createInOneStatement(create);
  if (row.uncheckedHosts.length) throw new Error("a row with unchecked destination hosts must be created in one statement");
  const deliveries: number[] = [];
  const link = await inPgTransaction(database().prismaPool, async (client) => {
    deliveries.length = 0;
    const inserted = await insertWithCode(client, row);
    const link = inserted && { ...linkWithHost(inserted, row.domain.host), tagNames: [] };
    if (link) deliveries.push(...(await recordEventSql(client, workspace, "link.created", { link: webhookLink(link) })));
    const reservation = await reserveLinkAllowance(client, workspace.id, plan.maxLinks, 1, month);
    if (reservation.granted === 0) throw ServiceError.quota("MaxLinks", plan.maxLinks, reservation.current);
    if (!link) throw ServiceError.aliasTaken(row.alias!);
    return link;
  });
  handOffAfterCommit(deliveries);
  return link;
}

/**
 * The create as one statement; a generated code that collides is drawn again (a new statement).
 * A refused destination is answered as the full checks answer it (recheck): the same issues, in
 * the same order as every other create's.
 */
async function createInOneStatement({ workspace, row, plan, month, recheck }: UntaggedCreate): Promise<LinkWithHost> {
  for (let attempt = 0; attempt < CODE_ATTEMPTS; attempt++) {
    const r = await insertLinkReservingAllowance(database().prismaPool, linkColumns(row), month, plan.maxLinks, row.uncheckedHosts);
    if ("link" in r) return { ...linkWithHost(r.link, row.domain.host), tagNames: [] };
    if (r.refused === "destination") {
      const checked = await recheck();
      if (checked instanceof ServiceError) throw checked;
      // (the domain stopped being verified in between: go on with the row as now checked)
      row = checked;
      attempt--;
      continue;
    }
    // the count for the error body, read after the refusal (nothing was taken)
    if (r.refused === "quota") throw ServiceError.quota("MaxLinks", plan.maxLinks, await linkAllowanceUsed(workspace.id, month));
    if (row.alias !== undefined) throw ServiceError.aliasTaken(row.alias);
  }
  throw new Error(`no free generated code after ${CODE_ATTEMPTS} attempts`);
}

/** The row's insert with its alias (null when taken or reserved), or a generated code drawn again on a collision. */
async function insertWithCode(client: Parameters<typeof insertLink>[0], row: PreparedRow) {
  if (row.alias !== undefined && isReservedAlias(row.alias)) return null;
  for (let attempt = 0; attempt < CODE_ATTEMPTS; attempt++) {
    const link = await insertLink(client, linkColumns(row));
    if (link || row.alias !== undefined) return link;
  }
  throw new Error(`no free generated code after ${CODE_ATTEMPTS} attempts`);
}

/** The insert's columns of the row: its alias, or a newly drawn code. */
function linkColumns(row: PreparedRow): NewLinkColumns {
  const d = row.data;
  return {
    workspaceId: d.workspaceId,
    domainId: d.domainId ?? null,
    domainKey: row.domain.domainKey,
    code: row.alias ?? generateCode(),
    url: d.url,
    title: d.title ?? "",
    notes: d.notes ?? null,
    folder: d.folder ?? "",
    active: d.active ?? true,
    startsOn: (d.startsOn as Date | null | undefined) ?? null,
    expiresOn: (d.expiresOn as Date | null | undefined) ?? null,
    maxClicks: d.maxClicks ?? null,
    fallbackUrl: d.fallbackUrl ?? null,
    passwordHash: d.passwordHash ?? null,
    targeting: d.targeting ?? null,
  };
}
