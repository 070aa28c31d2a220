"use server";
import { z } from "zod";
import { workspaceAction } from "@/lib/actions/workspace";
import { deleteView, revokeShare, saveView, shareView } from "@/lib/analytics/saved-views";
import { config } from "@/lib/config";
import { idSchema } from "@/lib/ids";

// Saved Analytics views: members save and delete them (analytics.views); owners and admins create
// and revoke their read-only share links (analytics.share), whose URL is shown once.

type Result<T> = { ok: true; data: T } | { ok: false; error: string };

const save = workspaceAction(
  {
    permission: "analytics.views",
    schema: z.object({ name: z.string(), params: z.record(z.string(), z.string()) }),
    revalidate: "/analytics",
  },
  async ({ workspace, userId }, input) => {
    const v = await saveView(workspace, userId, input);
    return { id: v.id, name: v.name };
  },
);

export async function saveViewAction(
  slug: string,
  name: string,
  params: Record<string, string>,
): Promise<Result<{ id: number; name: string }>> {
  const r = await save(slug, { name, params });
  return r.ok ? { ok: true, data: r.data } : { ok: false, error: r.error };
}

const remove = workspaceAction(
  { permission: "analytics.views", schema: z.object({ id: idSchema }), revalidate: "/analytics" },
  async ({ workspace }, { id }) => deleteView(workspace, id),
);

export async function deleteViewAction(slug: string, id: number): Promise<Result<null>> {
  const r = await remove(slug, { id });
  return r.ok ? { ok: true, data: null } : { ok: false, error: r.error };
}

const share = workspaceAction(
  { permission: "analytics.share", schema: z.object({ id: idSchema }), revalidate: "/analytics" },
  async ({ workspace }, { id }) => {
    const { token } = await shareView(workspace, id);
    return { url: `${config().APP_URL}/share/analytics/${token}` };
  },
);

export async function shareViewAction(slug: string, id: number): Promise<Result<{ url: string }>> {
  const r = await share(slug, { id });
  return r.ok ? { ok: true, data: r.data } : { ok: false, error: r.error };
}

const revoke = workspaceAction(
  { permission: "analytics.share", schema: z.object({ id: idSchema }), revalidate: "/analytics" },
  async ({ workspace }, { id }) => revokeShare(workspace, id),
);

export async function revokeShareAction(slug: string, id: number): Promise<Result<null>> {
  const r = await revoke(slug, { id });
  return r.ok ? { ok: true, data: null } : { ok: false, error: r.error };
}
