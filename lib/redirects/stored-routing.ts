import { previewSchema, ruleSchema, variantsSchema, type LinkRouting } from "../links/routing-schema.ts";
import { locationUrl } from "./lifecycle.ts";

// Link.routing as stored, read back for the redirect path: each part is checked with the API's own
// schema (lib/links/routing-schema.ts) and dropped when it does not pass, so bad data never breaks
// a redirect (as parseTargeting does for targeting). URLs are normalised for the Location header.

export function parseRouting(raw: unknown): LinkRouting | null {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return null;
  const src = raw as Record<string, unknown>;
  const out: LinkRouting = {};
  if (src.forwardQuery === true) out.forwardQuery = true;
  if (src.forwardPath === true) out.forwardPath = true;
  if (Array.isArray(src.rules)) {
    const rules = src.rules.flatMap((r) => {
      const parsed = ruleSchema.safeParse(r);
      const url = parsed.success ? locationUrl(parsed.data.url) : null;
      return parsed.success && url ? [{ ...parsed.data, url }] : [];
    });
    if (rules.length) out.rules = rules;
  }
  const variants = variantsSchema.safeParse(src.variants);
  if (variants.success && variants.data.every((v) => locationUrl(v.url)))
    out.variants = variants.data.map((v) => ({ ...v, url: locationUrl(v.url)! }));
  const preview = previewSchema.safeParse(src.preview);
  if (preview.success) out.preview = preview.data;
  return Object.keys(out).length ? out : null;
}
