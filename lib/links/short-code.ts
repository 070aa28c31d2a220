import { db, uniqueViolation } from "../db/client.ts";
import type { Prisma } from "../db/generated/client.ts";
import { ServiceError } from "../errors.ts";
import { OPERATIONS_PATHS, TLS_ASK_SEGMENT } from "../http/operations-paths.ts";
import { pooledBase62 } from "../keys/random.ts";

// The code rule: a link's code is unique per domain, and never one of the app's own paths.
//
// - A link's domain is its domain key: 0 for the default short domain (SHORT_DOMAIN), else the
//   custom domain's id. The database enforces uniqueness with the unique index on
//   Link (domainKey, code) (prisma/schema.prisma `@@unique([domainKey, code])`, created as
//   "Link_domainKey_code_key" in prisma/migrations/20261122080037_init/migration.sql). The key exists
//   because PostgreSQL treats NULLs as distinct, so (domainId, code) could not cover the default domain.
// - Reserved codes: the app's paths on a host it shares with short links, and the links API's own
//   paths. An alias among them answers 409 alias_taken like a taken one; a generated code avoids them.
// - Generated codes that collide are drawn again (CODE_ATTEMPTS rounds); a taken alias is 409
//   alias_taken, whether it is found by a read before the write or by the index during it.
//
// The redirect handler (lib/redirects) finds links by the same pair and leaves RESERVED_PATHS to
// Next: it imports them from here, and nothing here imports it.

/** The domain key of the default short domain. */
export const DEFAULT_DOMAIN_KEY = 0;

/** The domain key of a link on `domainId` (null: the default short domain). */
export function domainKeyOf(domainId: number | null): number {
  return domainId ?? DEFAULT_DOMAIN_KEY;
}

/** Paths of the app on a host it shares with short links: never treated as codes (nor allowed as aliases). */
export const RESERVED_PATHS = new Set([
  "api",
  "w",
  "login",
  "signup",
  "logout",
  "docs",
  "invite",
  "setup",
  "_next",
  "favicon.ico",
  "robots.txt",
  "settings",
  "new",
  "app",
  "static",
  "public",
  "account",
  "instance",
  "share",
  "forgot-password",
  "reset-password",
  // files Next generates from app/ metadata conventions
  "icon",
  "apple-icon",
  "opengraph-image",
  "twitter-image",
  "sitemap.xml",
  "manifest.webmanifest",
  // /healthz, /readyz, /metrics: answered by server.ts on every host (lib/http/operations-paths.ts)
  ...OPERATIONS_PATHS,
  // /tls/ask: Caddy's on-demand TLS question, answered by server.ts on every host (lib/domains/tls-ask.ts)
  TLS_ASK_SEGMENT,
]);

/**
 * API paths beside /api/v1/links/{code}: a link with one of these codes could not be read, edited
 * or deleted by code, so they are refused as aliases like the app's own paths.
 */
const API_LINK_PATHS = new Set(["bulk", "export"]);

/** Aliases that are paths of the app itself (on every domain, so a link never shadows the app) or of the links API. */
export function isReservedAlias(alias: string): boolean {
  return RESERVED_PATHS.has(alias) || API_LINK_PATHS.has(alias);
}

export const GENERATED_CODE_LENGTH = 7;

export function generateCode(): string {
  for (;;) {
    const code = pooledBase62(GENERATED_CODE_LENGTH);
    if (!RESERVED_PATHS.has(code)) return code;
  }
}

/** Rounds of drawing generated codes for the rows whose codes collided, before giving up. */
export const CODE_ATTEMPTS = 10;

/** One (domainKey, code) pair as one string: the unique index's key. */
export const codeKey = (domainKey: number, code: string) => `${domainKey}\u0000${code}`;

/** A link to insert: its alias (none: a generated code), its domain key, and every other column. */
export type NewLinkRow = {
  alias?: string;
  domain: { domainKey: number };
  data: Omit<Prisma.LinkCreateManyInput, "code">;
};

/** The aliases of `rows` that are already links' codes on their domains, as codeKey keys. */
export async function takenAliasKeys(rows: NewLinkRow[]): Promise<Set<string>> {
  const byDomain = new Map<number, Set<string>>();
  for (const r of rows)
    if (r.alias !== undefined) byDomain.set(r.domain.domainKey, (byDomain.get(r.domain.domainKey) ?? new Set()).add(r.alias));
  if (byDomain.size === 0) return new Set();
  const found = await db().link.findMany({
    where: { OR: [...byDomain].map(([domainKey, codes]) => ({ domainKey, code: { in: [...codes] } })) },
    select: { domainKey: true, code: true },
  });
  return new Set(found.map((l) => codeKey(l.domainKey, l.code)));
}

export type Inserted<L> = L | "taken";

/**
 * THE retry for a taken generated code (every create's): `insert` gets the rows to insert in a
 * round (index into `rows` and code: the alias, or a newly drawn code) and returns the links it
 * inserted; a row whose alias is taken (already, by an earlier row of the same call, or a reserved
 * path) comes back as "taken", and a generated code that collided is drawn again for the next
 * round, at most CODE_ATTEMPTS rounds. Each round goes in (domain, code) order, so concurrent
 * inserters wait on each other's codes in one order (no deadlock).
 */
export async function insertDrawingCodes<L extends { domainKey: number; code: string }>(
  rows: { alias?: string; domain: { domainKey: number } }[],
  insert: (round: { i: number; code: string }[]) => Promise<L[]>,
): Promise<Inserted<L>[]> {
  const result: (Inserted<L> | undefined)[] = new Array(rows.length);
  const keyOf = (i: number, code: string) => codeKey(rows[i].domain.domainKey, code);
  let pending = rows.map((r, i) => ({ i, code: r.alias ?? generateCode() }));
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt === CODE_ATTEMPTS) throw new Error(`no free generated code after ${CODE_ATTEMPTS} attempts`);
    const seen = new Set<string>();
    const round: typeof pending = [];
    const retry: typeof pending = [];
    for (const p of pending) {
      const key = keyOf(p.i, p.code);
      if (rows[p.i].alias !== undefined && (isReservedAlias(p.code) || seen.has(key))) result[p.i] = "taken";
      else if (seen.has(key)) retry.push({ i: p.i, code: generateCode() });
      else {
        seen.add(key);
        round.push(p);
      }
    }
    round.sort((a, b) => rows[a.i].domain.domainKey - rows[b.i].domain.domainKey || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
    const byKey = new Map((round.length ? await insert(round) : []).map((l) => [codeKey(l.domainKey, l.code), l]));
    for (const p of round) {
      const link = byKey.get(keyOf(p.i, p.code));
      if (link) result[p.i] = link;
      else if (rows[p.i].alias !== undefined) result[p.i] = "taken";
      else retry.push({ i: p.i, code: generateCode() });
    }
    pending = retry;
  }
  return result as Inserted<L>[];
}

/** 409 alias_taken when `alias` is reserved or already a link's code on the domain of `domainKey`. */
export async function refuseTakenAlias(domainKey: number, alias: string): Promise<void> {
  if (isReservedAlias(alias)) throw ServiceError.aliasTaken(alias);
  const holder = await db().link.findUnique({
    where: { domainKey_code: { domainKey, code: alias } },
    select: { id: true },
  });
  if (holder) throw ServiceError.aliasTaken(alias);
}

/**
 * What a failed write of a link that sets `alias` means: 409 alias_taken when the database refused
 * it as a unique violation (P2002); null for any other error. The (domainKey, code) index is the
 * only unique constraint of Link besides its id, so a violation on such a write is always this rule.
 */
export function aliasTakenByIndex(e: unknown, alias: string | undefined): ServiceError | null {
  return uniqueViolation(e) && alias !== undefined ? ServiceError.aliasTaken(alias) : null;
}
