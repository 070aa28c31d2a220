"use server";
import { z } from "zod";
import { workspaceAction } from "@/lib/actions/workspace";
import { httpUrl } from "@/lib/links/field-schemas";
import { fetchLinkPreview } from "@/lib/links/preview-fetch";
import { testVisitor, visitorTestSchema } from "@/lib/redirects/tester";

// The link form's routing helpers: the rule tester (the redirect's own decision function, on the
// form's unsaved routing) and "Fetch from destination" for the preview card. Neither writes anything.

export const testVisitorAction = workspaceAction(
  { permission: "workspace.view", schema: visitorTestSchema, fields: ["url", "targeting", "rules", "variants", "visitor"] },
  async (_ctx, input) => testVisitor(input),
);

export const fetchPreviewAction = workspaceAction(
  { permission: "links.write", schema: z.object({ url: httpUrl }), fields: ["url"] },
  async ({ workspace }, { url }) => fetchLinkPreview(workspace, url),
);
