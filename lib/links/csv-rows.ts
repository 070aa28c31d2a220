// CSV rows of a bulk import -> create bodies of POST /api/v1/links/bulk (the same fields), and a
// link -> a row of the export (export.ts), in the same columns. Pure and browser-safe: the import
// page converts and previews in the browser, then sends the bodies; the service validates them
// exactly as the API does. Reading and writing CSV text is lib/csv's.

import type { LinkRouting } from "./routing-schema.ts";
import type { CreateLinkInput } from "./schemas.ts";

/**
 * The CSV columns, in file order (the export's header and the template): the create body's fields,
 * except that targeting is split into ios, android and geo, and utm is not a column. The routing
 * fields variants, rules and preview are one cell each holding their JSON (as in the API body).
 */
export const IMPORT_COLUMNS = [
  "url",
  "alias",
  "domain",
  "title",
  "notes",
  "folder",
  "active",
  "startsOn",
  "expiresOn",
  "maxClicks",
  "fallbackUrl",
  "password",
  "ios",
  "android",
  "geo",
  "tags",
  "forwardQuery",
  "forwardPath",
  "variants",
  "rules",
  "preview",
] as const satisfies readonly (Exclude<keyof CreateLinkInput, "targeting" | "utm"> | "ios" | "android" | "geo")[];
export type ImportColumn = (typeof IMPORT_COLUMNS)[number];

const ALIASES: Record<string, ImportColumn> = {
  url: "url",
  destination: "url",
  link: "url",
  longurl: "url",
  alias: "alias",
  code: "alias",
  slug: "alias",
  key: "alias",
  domain: "domain",
  host: "domain",
  title: "title",
  name: "title",
  notes: "notes",
  note: "notes",
  description: "notes",
  folder: "folder",
  tags: "tags",
  tag: "tags",
  labels: "tags",
  active: "active",
  enabled: "active",
  startson: "startsOn",
  starts: "startsOn",
  start: "startsOn",
  startsat: "startsOn",
  expireson: "expiresOn",
  expires: "expiresOn",
  expiry: "expiresOn",
  expiresat: "expiresOn",
  maxclicks: "maxClicks",
  clicklimit: "maxClicks",
  fallbackurl: "fallbackUrl",
  fallback: "fallbackUrl",
  password: "password",
  ios: "ios",
  iosurl: "ios",
  android: "android",
  androidurl: "android",
  geo: "geo",
  countries: "geo",
  forwardquery: "forwardQuery",
  forwardpath: "forwardPath",
  variants: "variants",
  rules: "rules",
  preview: "preview",
};

/** The columns whose cell is JSON (the API body's value of the field). */
const JSON_COLUMNS = new Set<ImportColumn>(["variants", "rules", "preview"]);

/** Which import column a CSV header names ("Max Clicks", "max_clicks", "maxClicks" alike), or null. */
export function columnFor(header: string): ImportColumn | null {
  return ALIASES[header.toLowerCase().replace(/[\s_-]+/g, "")] ?? null;
}

export type ConvertedRow = { row: number; body: Record<string, unknown> } | { row: number; errors: string[] };

function parseTime(v: string): number | null {
  if (/^\d{1,12}$/.test(v)) return Number(v);
  // ISO 8601; a date or time without a zone is taken as UTC.
  const iso = /^\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?$/.test(v) ? v.replace(" ", "T") + (v.length > 10 ? "Z" : "") : v;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? null : Math.floor(t / 1000);
}

const TRUE = new Set(["true", "yes", "y", "1"]);
const FALSE = new Set(["false", "no", "n", "0"]);

/** One CSV record (header -> text) as a create body; `row` is its 1-based data row number. */
/**
 * A cell as written before the app's CSV writer protected it: toCsv puts an apostrophe before a
 * text cell starting with =, +, -, @, tab or CR (see neutraliseFormula); reading drops it again, so
 * an export imports unchanged.
 */
export function unprotectCell(v: string): string {
  return /^'[=+\-@\t\r]/.test(v) ? v.slice(1) : v;
}

export function toLinkBody(record: Record<string, string>, row: number): ConvertedRow {
  const body: Record<string, unknown> = {};
  const errors: string[] = [];
  const targeting: { ios?: string; android?: string; geo?: Record<string, string> } = {};
  for (let [header, raw] of Object.entries(record)) {
    const col = columnFor(header);
    raw = unprotectCell(raw ?? "");
    const v = raw.trim();
    if (!col || v === "") continue;
    if (JSON_COLUMNS.has(col)) {
      try {
        body[col] = JSON.parse(v);
      } catch {
        errors.push(
          `${col}: the cell is not JSON (write the value as the API takes it, for example [{"url":"https://example.com/a","weight":50},...])`,
        );
      }
      continue;
    }
    switch (col) {
      case "active":
      case "forwardQuery":
      case "forwardPath":
        if (TRUE.has(v.toLowerCase())) body[col] = true;
        else if (FALSE.has(v.toLowerCase())) body[col] = false;
        else errors.push(`${col}: use true or false, not "${v}"`);
        break;
      case "startsOn":
      case "expiresOn": {
        const t = parseTime(v);
        if (t === null) errors.push(`${col}: "${v}" is not a date (use ISO 8601 such as 2026-12-31T18:00:00Z, or unix seconds)`);
        else body[col] = t;
        break;
      }
      case "maxClicks":
        if (/^\d+$/.test(v)) body.maxClicks = Number(v);
        else errors.push(`maxClicks: "${v}" is not a whole number`);
        break;
      case "ios":
      case "android":
        targeting[col] = v;
        break;
      case "geo": {
        const geo: Record<string, string> = {};
        for (const part of v.split(/\s+/)) {
          const m = /^([A-Za-z]{2})=(\S+)$/.exec(part);
          if (m) geo[m[1].toUpperCase()] = m[2];
          else errors.push(`geo: "${part}" is not COUNTRY=URL (for example US=https://example.com)`);
        }
        targeting.geo = geo;
        break;
      }
      case "tags":
        body.tags = v
          .split(",")
          .map((t) => t.trim())
          .filter(Boolean);
        break;
      case "notes":
      case "title":
        body[col] = raw; // keep inner spacing as written
        break;
      default:
        body[col] = v;
    }
  }
  if (Object.keys(targeting).length) body.targeting = targeting;
  if (errors.length) return { row, errors };
  return { row, body };
}

/** A starter file for the import page's "Download a template". */
export const TEMPLATE_CSV =
  IMPORT_COLUMNS.join(",") +
  "\r\n" +
  'https://example.com/spring-sale,,,Spring sale,,marketing/2026,true,,,,,,,,,"spring, sale",false,,,,\r\n' +
  "https://example.com/docs,docs-start,,Getting started,Shared in the welcome mail,onboarding,true,,2026-12-31T23:59:59Z,1000,https://example.com,,,,US=https://example.com/us DE=https://example.de,,true,,,,\r\n";

/** One link as a row of IMPORT_COLUMNS (the CSV export); the password column stays empty (only a hash is stored). */
export type ExportableLink = {
  url: string;
  code: string;
  /** the custom domain's host; "" for the default short domain, so the file imports on any instance */
  domain: string;
  title: string;
  notes: string | null;
  folder: string;
  active: boolean;
  startsOn: Date | null;
  expiresOn: Date | null;
  maxClicks: number | null;
  fallbackUrl: string | null;
  targeting: { ios?: string; android?: string; geo?: Record<string, string> } | null;
  tags: string[];
  /** Link.routing (canonical, lib/links/routing.ts) */
  routing: LinkRouting | null;
};

const iso = (d: Date | null) => (d ? d.toISOString().replace(/\.000Z$/, "Z") : "");

export function toExportRow(l: ExportableLink): (string | number)[] {
  const geo = Object.entries(l.targeting?.geo ?? {})
    .map(([cc, url]) => `${cc}=${url}`)
    .join(" ");
  const cells: Record<ImportColumn, string | number> = {
    url: l.url,
    alias: l.code,
    domain: l.domain,
    title: l.title,
    notes: l.notes ?? "",
    folder: l.folder,
    active: l.active ? "true" : "false",
    startsOn: iso(l.startsOn),
    expiresOn: iso(l.expiresOn),
    maxClicks: l.maxClicks ?? "",
    fallbackUrl: l.fallbackUrl ?? "",
    password: "",
    ios: l.targeting?.ios ?? "",
    android: l.targeting?.android ?? "",
    geo,
    tags: l.tags.join(", "),
    forwardQuery: l.routing?.forwardQuery ? "true" : "false",
    forwardPath: l.routing?.forwardPath ? "true" : "false",
    variants: l.routing?.variants ? JSON.stringify(l.routing.variants) : "",
    rules: l.routing?.rules ? JSON.stringify(l.routing.rules) : "",
    preview: l.routing?.preview ? JSON.stringify(l.routing.preview) : "",
  };
  return IMPORT_COLUMNS.map((c) => cells[c]);
}
