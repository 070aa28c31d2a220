import { isBotAgent } from "../analytics/ingest/agent.ts";
import type { Preview } from "../links/routing-schema.ts";

// The social preview card (CONTRACT.md "Link routing": `preview`): a link-preview fetcher or
// crawler gets a small HTML page of Open Graph and Twitter card tags instead of the redirect.
// Everyone else is redirected as before. Every value is HTML-escaped.

// The well-known preview fetchers, named even where isbot already knows them, so a change in its
// list cannot turn their cards off.
const PREVIEW_AGENTS = /Slackbot|Twitterbot|facebookexternalhit|LinkedInBot|Discordbot|WhatsApp|TelegramBot/i;

/** A link-preview fetcher or crawler (isbot, plus the preview agents named above). */
export function isPreviewAgent(userAgent: string | undefined): boolean {
  return Boolean(userAgent) && (PREVIEW_AGENTS.test(userAgent!) || isBotAgent(userAgent));
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The preview page for one link; `shortUrl` is the URL the visitor asked for (og:url). */
export function previewPage(preview: Preview, shortUrl: string): Buffer {
  const meta = (attr: "property" | "name", key: string, value: string) => `<meta ${attr}="${key}" content="${escapeHtml(value)}">`;
  const tags = [
    preview.title !== undefined ? meta("property", "og:title", preview.title) : "",
    preview.description !== undefined ? meta("property", "og:description", preview.description) : "",
    preview.image !== undefined ? meta("property", "og:image", preview.image) : "",
    meta("property", "og:url", shortUrl),
    meta("name", "twitter:card", preview.image !== undefined ? "summary_large_image" : "summary"),
    preview.title !== undefined ? meta("name", "twitter:title", preview.title) : "",
    preview.description !== undefined ? meta("name", "twitter:description", preview.description) : "",
    preview.image !== undefined ? meta("name", "twitter:image", preview.image) : "",
  ].join("");
  const title = preview.title !== undefined ? `<title>${escapeHtml(preview.title)}</title>` : "";
  return Buffer.from(`<!doctype html><html><head><meta charset="utf-8">${title}${tags}</head><body></body></html>`);
}
