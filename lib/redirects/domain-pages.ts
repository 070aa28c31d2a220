import type { ServerResponse } from "node:http";
import { isDenylisted } from "../links/rules.ts";
import { locationUrl } from "./lifecycle.ts";

// What a verified, active custom domain answers besides its short links (settings edited in
// lib/domains/app-links.ts): the app-link files under /.well-known/, a redirect for / (rootUrl) and
// for anything not found (notFoundUrl) instead of the 404 page. The settings travel with the
// in-memory domain table (cache.ts DomainTable, reloaded on every Domain change by its notify
// trigger), so these answers need no database access either; an ordinary redirect never looks here.

export const AASA_PATH = "/.well-known/apple-app-site-association";
export const ASSET_LINKS_PATH = "/.well-known/assetlinks.json";

export type DomainPages = {
  /** the stored JSON, ready to send */
  appleAppSiteAssociation: Buffer | null;
  assetLinks: Buffer | null;
  rootUrl: string | null;
  notFoundUrl: string | null;
};

/** A verified, active custom domain in the table: its id (the links' domain key) and its pages (null: none set, or its workspace is off). */
export type ServedDomain = { id: number; pages: DomainPages | null };

export type DomainPage = { kind: "json"; body: Buffer } | { kind: "redirect"; url: string };

type PagesRow = {
  aasa: string | null;
  asset_links: string | null;
  root_url: string | null;
  not_found_url: string | null;
  workspace_active: boolean;
};

/**
 * The pages of one row of loadServedDomains. A switched-off workspace serves none (its links are
 * off too); a URL whose host joined DESTINATION_DENYLIST after it was saved is left out, as a
 * link's destination would be refused (denylist.ts).
 */
export function domainPagesOf(r: PagesRow, denylist: string[]): DomainPages | null {
  if (!r.workspace_active) return null;
  const url = (raw: string | null) => {
    const href = locationUrl(raw);
    return href && !isDenylisted(new URL(href).hostname, denylist) ? href : null;
  };
  const pages: DomainPages = {
    appleAppSiteAssociation: file(r.aasa),
    assetLinks: file(r.asset_links),
    rootUrl: url(r.root_url),
    notFoundUrl: url(r.not_found_url),
  };
  return Object.values(pages).some((v) => v !== null) ? pages : null;
}

/**
 * A path of a custom domain that is not a code ("/", "/.well-known/...", "/a/b"): the stored file,
 * the root or not-found redirect, or null for the 404 page. An app-link file that is not set is
 * 404 (never the not-found redirect: an app's verifier must see that the file is absent). GET and
 * HEAD only: a form posted to such a path is not followed anywhere.
 */
export function pathPage(pages: DomainPages | null | undefined, method: string | undefined, url: string | undefined): DomainPage | null {
  if (!pages || (method !== "GET" && method !== "HEAD")) return null;
  const q = (url ?? "/").indexOf("?");
  const path = q === -1 ? (url ?? "/") : url!.slice(0, q);
  if (path === AASA_PATH) return json(pages.appleAppSiteAssociation);
  if (path === ASSET_LINKS_PATH) return json(pages.assetLinks);
  if (path === "/" && pages.rootUrl) return { kind: "redirect", url: pages.rootUrl };
  return notFoundPage(pages);
}

/** An unknown code (or any other path not found) on the domain: its notFoundUrl, or null for the 404 page. */
export function notFoundPage(pages: DomainPages | null | undefined): DomainPage | null {
  return pages?.notFoundUrl ? { kind: "redirect", url: pages.notFoundUrl } : null;
}

/** Stored JSON text as the bytes to send; a JSON null (never written by lib/domains) is no file. */
function file(text: string | null): Buffer | null {
  return text === null || text === "null" ? null : Buffer.from(text);
}

function json(body: Buffer | null): DomainPage | null {
  return body && { kind: "json", body };
}

export function writeDomainPage(res: ServerResponse, page: DomainPage, head: boolean) {
  if (page.kind === "redirect") {
    res.writeHead(302, { Location: page.url, "Cache-Control": "no-store", "Content-Length": 0 });
    res.end();
    return;
  }
  res.writeHead(200, {
    "Content-Type": "application/json",
    "Content-Length": page.body.length,
    "Cache-Control": "no-cache",
    "X-Content-Type-Options": "nosniff",
  });
  res.end(head ? undefined : page.body);
}
