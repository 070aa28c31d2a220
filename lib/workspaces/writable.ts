import { db, type Tx } from "../db/client.ts";
import { ServiceError } from "../errors.ts";

// A deactivated workspace (admin CLI `workspace:deactivate`) is read-only: its pages still open
// (with a banner), every change is refused with this message, it emits no events and nothing is
// delivered to its webhook endpoints (lib/events, lib/webhooks). The API already answers 401 for it.

export const DEACTIVATED_MESSAGE =
  "This workspace is deactivated and read-only: nothing can be changed until an administrator reactivates it.";
/** The delivery log's reason for deliveries cancelled because their workspace was switched off. */
export const DEACTIVATED_CANCEL_REASON = "the workspace is deactivated";

/** Throws unless the workspace is active, reading its state now (a page may have loaded it before a deactivation). */
export async function assertWritable(workspaceId: number, tx?: Tx): Promise<void> {
  const ws = await (tx ?? db()).workspace.findUnique({ where: { id: workspaceId }, select: { active: true } });
  if (!ws) throw ServiceError.notFound("Workspace not found.");
  if (!ws.active) throw ServiceError.forbidden(DEACTIVATED_MESSAGE);
}
