import { config } from "../config/index.ts";
import { ServiceError } from "../errors.ts";
import { log } from "../log/index.ts";
import { hasFeature, planOf } from "../plans/index.ts";
import { checkDestination, defaultResolve, postPinned, type GuardOptions } from "../net/index.ts";
import { pageCard, type PageCard } from "./preview-tags.ts";

// "Fetch from destination" in the link form: reads the destination page's own card (preview-tags.ts)
// through the address guard and pinned dialer that webhooks use (lib/net), with the same settings
// (WEBHOOK_ALLOW_PRIVATE, WEBHOOK_TEST_ALLOW_PORT, DNS_SERVERS): no private or local addresses, https
// on port 443, one deadline for the whole fetch, at most PAGE_MAX_BYTES read. Redirects are followed
// a few times, each hop checked again.

export const PAGE_TIMEOUT_MS = 5000;
export const PAGE_MAX_BYTES = 512 * 1024;
export const MAX_REDIRECTS = 3;

function guardOptions(): GuardOptions {
  const cfg = config();
  return { allowPrivate: cfg.WEBHOOK_ALLOW_PRIVATE, allowPort: cfg.WEBHOOK_TEST_ALLOW_PORT, resolve: defaultResolve(cfg.DNS_SERVERS) };
}

const refuse = (message: string) => ServiceError.validation([{ path: "url", message }], message);

/** The destination page's preview card; a ServiceError (validation, on `url`) when it cannot be read. */
export async function fetchPreviewCard(url: string, options: GuardOptions = guardOptions()): Promise<PageCard> {
  const deadline = Date.now() + PAGE_TIMEOUT_MS;
  let current = url;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const left = deadline - Date.now();
    if (left <= 0) break;
    const checked = await Promise.race([
      checkDestination(current, options),
      new Promise<null>((resolve) => setTimeout(() => resolve(null), left).unref()),
    ]);
    if (!checked) break;
    if (!checked.ok) {
      if (checked.detail) log("links").warn(`refused a preview fetch: ${checked.detail}`);
      throw refuse(`Could not read the page: ${checked.message}`);
    }
    const r = await postPinned({
      method: "GET",
      url: checked.url,
      addresses: checked.addresses,
      headers: { "User-Agent": "LinkhopPreview/1.0", Accept: "text/html,application/xhtml+xml" },
      body: "",
      timeoutMs: Math.max(1, deadline - Date.now()),
      maxResponseBytes: PAGE_MAX_BYTES,
    });
    if (r.outcome === "timeout") break;
    if (r.outcome !== "response" || r.statusCode === null) throw refuse("Could not reach the page.");
    if (r.statusCode >= 300 && r.statusCode < 400 && r.location) {
      current = new URL(r.location, checked.url).href;
      continue;
    }
    if (r.statusCode !== 200) throw refuse(`The page answered HTTP ${r.statusCode}.`);
    const card = pageCard(r.body, checked.url.href);
    if (!card.title && !card.description && !card.image) throw refuse("The page has no title, description or image to show.");
    return card;
  }
  throw refuse(`The page did not answer within ${PAGE_TIMEOUT_MS / 1000} seconds (or redirected more than ${MAX_REDIRECTS} times).`);
}

/** fetchPreviewCard for a workspace whose plan has LinkPreviews (the preview it fills needs that feature). */
export async function fetchLinkPreview(workspace: { plan: string }, url: string): Promise<PageCard> {
  if (!hasFeature(planOf(workspace.plan), "LinkPreviews")) throw ServiceError.feature("LinkPreviews");
  return fetchPreviewCard(url);
}
