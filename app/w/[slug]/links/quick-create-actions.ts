"use server";
import { workspaceAction } from "@/lib/actions/workspace";
import { z } from "zod";
import { codeAvailability, codeAvailabilitySchema, suggestCodeSchema, suggestFreeCode } from "@/lib/links";
import { linkFormContext } from "@/lib/links/views";

// What the quick-create dialog may offer (domains, tags, templates, the plan's features), asked
// when the Links page is idle rather than rendered into every navigation to it; then the live
// short-code answers of the quick-create dialog and the link form (lib/links/code-availability.ts).
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

/** The dialog's form data (lib/links/views.ts linkFormContext), for members who may create links. */
export const quickCreateContextAction = workspaceAction(
  { permission: "links.write", schema: z.object({}).strict(), fields: [] },
  ({ workspace }) => linkFormContext(workspace),
);
