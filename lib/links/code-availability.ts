import { z } from "zod";
import { ServiceError } from "../errors.ts";
import type { Workspace } from "../db/generated/client.ts";
import { resolveCreateDomains } from "./link-domain.ts";
import { createLinkSchema } from "./schemas.ts";
import { generateCode, refuseTakenAlias } from "./short-code.ts";

// Whether a short code can be had on a domain, asked while a person types it (the quick-create
// dialog and the link form). The rules are the create's own, never restated: the alias field of
// the create schema (schemas.ts), the domains a create may use (link-domain.ts) and the code rule
// (short-code.ts: reserved paths and the unique (domainKey, code) index). The answer is advice: a
// create that races another for the same code still gets 409 alias_taken from the index.

export const codeAvailabilitySchema = z.strictObject({
  // bounded before any rule runs: the create's own field rules judge the content
  domain: z.string().max(253),
  code: z.string().max(100),
});
export type CodeAvailabilityInput = z.output<typeof codeAvailabilitySchema>;

export type CodeAvailability = { status: "free" | "taken" | "invalid"; message?: string };

const aliasField = createLinkSchema.shape.alias.unwrap();

/** free, taken (a link's code on that domain, or one of the app's own paths) or invalid (the alias rule, or not a domain of the workspace). */
export async function codeAvailability(workspace: Pick<Workspace, "id">, input: CodeAvailabilityInput): Promise<CodeAvailability> {
  const parsed = aliasField.safeParse(input.code);
  if (!parsed.success) return { status: "invalid", message: parsed.error.issues[0]?.message };
  const domain = (await resolveCreateDomains(workspace, [input.domain]))(input.domain);
  if ("message" in domain) return { status: "invalid", message: domain.message };
  try {
    await refuseTakenAlias(domain.domainKey, parsed.data);
    return { status: "free" };
  } catch (e) {
    if (e instanceof ServiceError && e.code === "alias_taken") return { status: "taken" };
    throw e;
  }
}

export const suggestCodeSchema = z.strictObject({ domain: z.string().max(253) });

/** A generated code (the create's own drawing) that is free on the domain right now. */
export async function suggestFreeCode(workspace: Pick<Workspace, "id">, input: { domain: string }): Promise<{ code: string }> {
  for (let i = 0; i < 5; i++) {
    const code = generateCode();
    const r = await codeAvailability(workspace, { domain: input.domain, code });
    if (r.status === "invalid") throw ServiceError.validation([{ path: "domain", message: r.message ?? "not a domain of this workspace" }]);
    if (r.status === "free") return { code };
  }
  // 62^7 codes: five taken draws in a row mean something else is wrong
  throw new Error("no free generated code after 5 draws");
}
