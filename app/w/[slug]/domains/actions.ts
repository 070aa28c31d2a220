"use server";
import { z } from "zod";
import { workspaceAction } from "@/lib/actions/workspace";
import { addDomain, removeDomain, verifyDomain } from "@/lib/domains";
import { updateDomainSettings } from "@/lib/domains/app-links";
import { DOMAIN_SETTINGS_FIELDS, domainSettingsFormSchema } from "@/lib/domains/schemas";
import { idSchema } from "@/lib/ids";

// The Domains page's actions: owners and admins only (domains.manage).

const domain = z.object({ id: idSchema });

export const addDomainAction = workspaceAction(
  { permission: "domains.manage", schema: z.object({ host: z.unknown() }), revalidate: "/domains" },
  async ({ workspace }, { host }) => addDomain(workspace, host),
);

export const verifyDomainAction = workspaceAction(
  { permission: "domains.manage", schema: domain, revalidate: (_input, r) => ((r as { verified: boolean }).verified ? "/domains" : null) },
  async ({ workspace }, { id }): Promise<{ verified: boolean; message: string }> => {
    const r = await verifyDomain(workspace, id);
    return { verified: r.verified, message: r.message };
  },
);

export const removeDomainAction = workspaceAction(
  { permission: "domains.manage", schema: domain, revalidate: "/domains" },
  async ({ workspace }, { id }) => {
    const r = await removeDomain(workspace, id);
    return { host: r.host };
  },
);

// App links and the root / not-found redirects: the same service and rules as PATCH /api/v1/domains/{host}.
export const updateDomainSettingsAction = workspaceAction(
  { permission: "domains.manage", schema: domainSettingsFormSchema, fields: DOMAIN_SETTINGS_FIELDS, revalidate: "/domains" },
  async ({ workspace }, { host, ...settings }) => {
    const d = await updateDomainSettings(workspace, host, settings);
    return { host: d.host };
  },
);
