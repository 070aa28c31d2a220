"use server";
import { z } from "zod";
import { instanceAction } from "@/lib/actions/instance";
import { setSignupMode } from "@/lib/instance";
import { setActive, setPlan } from "@/lib/workspaces";

// The Instance page's actions: the instance permission (lib/actions/instance.ts), then the same
// services the admin CLI's workspace:plan, workspace:deactivate / activate and instance:signup call.

const slug = z.string().max(64);

export const setWorkspacePlanAction = instanceAction(
  { permission: "instance.manage", schema: z.object({ slug, plan: z.string().max(64) }) },
  async (_userId, { slug, plan }) => setPlan(slug, plan),
);

export const setWorkspaceActiveAction = instanceAction(
  { permission: "instance.manage", schema: z.object({ slug, active: z.boolean() }) },
  async (_userId, { slug, active }) => setActive(slug, active),
);

export const setSignupModeAction = instanceAction(
  { permission: "instance.manage", schema: z.object({ mode: z.unknown() }) },
  async (_userId, input) => setSignupMode(input),
);
