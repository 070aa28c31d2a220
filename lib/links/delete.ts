import { withEvents } from "../events/index.ts";
import { findOwnLink, resolveRef, type LinkRef, type LinkWorkspace } from "./lookup.ts";
import { webhookLink, type LinkWithHost } from "./serialize.ts";

/** Deletes one link (link.deleted { link as it was }). Its allowance unit is not given back. */
export async function deleteLink(workspace: LinkWorkspace, ref: LinkRef): Promise<{ id: number; deleted: true; link: LinkWithHost }> {
  const resolved = await resolveRef(workspace, ref);
  return withEvents(async (tx, emit) => {
    const before = await findOwnLink(tx, workspace, resolved, true);
    await tx.link.delete({ where: { id: before.id } });
    await emit(workspace, "link.deleted", { link: webhookLink(before) });
    return { id: before.id, deleted: true as const, link: before };
  });
}
