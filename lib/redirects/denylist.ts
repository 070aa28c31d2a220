import { destinationsOf, isDenylisted } from "../links/rules.ts";
import type { RedirectLink } from "./lifecycle.ts";

// DESTINATION_DENYLIST holds for links saved before a host was added to it: such a link answers
// 403 with a small page (no redirect, no fallback) until its owner changes the destination. The
// check runs once when a link is loaded into the cache (the list is fixed for the process's
// life), so a warm redirect pays nothing for it.

/** Marks the link denied when any of its destinations (url, fallback, targeting, rules, variants) is on the denylist. */
export function withDenylist(link: RedirectLink | null, denylist: string[]): RedirectLink | null {
  if (!link || denylist.length === 0) return link;
  const urls = destinationsOf({ url: link.url, fallbackUrl: link.fallbackUrl ?? undefined, targeting: link.targeting ?? undefined }).map(
    (d) => d.url,
  );
  for (const r of link.routing?.rules ?? []) urls.push(r.url);
  for (const v of link.routing?.variants ?? []) urls.push(v.url);
  const denied = urls.some((url) => {
    try {
      return isDenylisted(new URL(url).hostname, denylist);
    } catch {
      return false;
    }
  });
  return denied ? { ...link, denied } : link;
}
