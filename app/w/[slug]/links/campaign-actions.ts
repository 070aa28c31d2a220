"use server";
import { z } from "zod";
import { workspaceAction } from "@/lib/actions/workspace";
import { parseLinkInput, retagLinks, retagLinksSchema } from "@/lib/links";

// Bulk tag editing on the Links page, through the link service (same events as a PATCH of tags).
export const retagLinksAction = workspaceAction(
  { permission: "links.write", schema: z.unknown(), revalidate: { path: "/links", layout: true } },
  async ({ workspace }, input): Promise<{ changed: number }> => retagLinks(workspace, parseLinkInput(retagLinksSchema, input)),
);
