import { z } from "zod";
import { joinedIssueTexts, ServiceError } from "../errors.ts";
import { db, uniqueViolation } from "../db/client.ts";
import type { UtmTemplate } from "../db/generated/client.ts";
import { tagKey } from "../tags/schemas.ts";
import { utmSchema, UTM_FIELDS, type Utm } from "./utm.ts";

// Workspace UTM templates: named sets of UTM values the link form applies (merged into the URL
// like the API's utm field). Names are unique per workspace ignoring case (unique index on nameKey).

export const utmTemplateSchema = z.strictObject({
  name: z.string().trim().min(1, "must not be empty").max(60, "must be at most 60 characters"),
  utm: utmSchema.refine((u) => UTM_FIELDS.some((f) => (u[f] ?? "") !== ""), "set at least one UTM value"),
});
export type UtmTemplateInput = z.output<typeof utmTemplateSchema>;

export type UtmTemplateView = { id: number; name: string; utm: Utm };

export function toUtmTemplateView(t: UtmTemplate): UtmTemplateView {
  const utm: Utm = {};
  for (const f of UTM_FIELDS) if (t[f]) utm[f] = t[f];
  return { id: t.id, name: t.name, utm };
}

export async function listUtmTemplates(workspace: { id: number }): Promise<UtmTemplateView[]> {
  const rows = await db().utmTemplate.findMany({ where: { workspaceId: workspace.id }, orderBy: [{ nameKey: "asc" }, { id: "asc" }] });
  return rows.map(toUtmTemplateView);
}

export async function createUtmTemplate(workspace: { id: number }, input: UtmTemplateInput): Promise<UtmTemplateView> {
  try {
    const row = await db().utmTemplate.create({
      data: {
        workspaceId: workspace.id,
        name: input.name,
        nameKey: tagKey(input.name),
        ...Object.fromEntries(UTM_FIELDS.map((f) => [f, input.utm[f] ?? ""])),
      },
    });
    return toUtmTemplateView(row);
  } catch (e) {
    if (uniqueViolation(e)) {
      const issues = [{ path: "name", message: `a template named "${input.name}" already exists in this workspace` }];
      throw ServiceError.validation(issues, joinedIssueTexts(issues));
    }
    throw e;
  }
}

export async function deleteUtmTemplate(workspace: { id: number }, id: number): Promise<void> {
  const { count } = await db().utmTemplate.deleteMany({ where: { id, workspaceId: workspace.id } });
  if (count === 0) throw ServiceError.notFound("This template no longer exists.");
}
