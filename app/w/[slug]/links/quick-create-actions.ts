"use server";
import { workspaceAction } from "@/lib/actions/workspace";
import { codeAvailability, codeAvailabilitySchema, suggestCodeSchema, suggestFreeCode } from "@/lib/links";

// The live short-code answers of the quick-create dialog and the link form (lib/links/code-availability.ts).
// Creating itself goes through createLinkAction (actions.ts), the form's and the API's one path.

/** free / taken / invalid for a code on one of the workspace's domains. */
export const codeAvailabilityAction = workspaceAction(
  { permission: "links.write", schema: codeAvailabilitySchema, fields: [] },
  ({ workspace }, input) => codeAvailability(workspace, input),
);

/** A random code, free on the domain right now (the "random" button). */
export const randomCodeAction = workspaceAction(
  { permission: "links.write", schema: suggestCodeSchema, fields: ["domain"] },
  ({ workspace }, input) => suggestFreeCode(workspace, input),
);
