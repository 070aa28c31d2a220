import { database } from "../db/client.ts";

// The API's per-key request budget: a window that starts at the key's first request and lasts
// `windowSeconds`; when it has ended, the next request starts a new window with the whole budget.
// The window lives in PostgreSQL (RateWindow, one row per key) so any number of app processes
// share one budget exactly.

export type RateDecision = {
  allowed: boolean;
  /** requests allowed per window (X-RateLimit-Limit) */
  limit: number;
  /** requests left in the current window (X-RateLimit-Remaining), never negative */
  remaining: number;
};

// The limiter has its own small pool whose sessions commit asynchronously (synchronous_commit=off,
// lib/db/client.ts): every request of a key updates the same row, and waiting for the WAL flush while
// holding that row's lock would queue a busy key's requests behind the disk. Atomicity and isolation
// are unchanged; a crash can forget the last fraction of a second of counts, which only ever grants a
// few extra requests. Links and everything else keep durable commits (Prisma's pool).

// The window's update, shared by the statements below: restart an ended window, else count one
// more. `p(i)` names the statement's i-th parameter of the rate (1 key, 2 window seconds, 3 limit,
// 4 plan), so the same text can be part of a larger statement (liveKeyRateCte).
const onConflict = (p: (i: number) => string) => `
  ON CONFLICT ("keyId") DO UPDATE SET
    "startedAt" = CASE WHEN w."startedAt" + make_interval(secs => ${p(2)}::float8) <= now() THEN now() ELSE w."startedAt" END,
    "count" = CASE WHEN w."startedAt" + make_interval(secs => ${p(2)}::float8) <= now() THEN 1 ELSE LEAST(w."count" + 1, ${p(3)}::int + 1) END
  RETURNING "count"`;

const own = (i: number) => `$${i}`;

const CONSUME = `
  INSERT INTO "RateWindow" AS w ("keyId", "startedAt", "count")
  VALUES ($1::int, now(), 1)${onConflict(own)}`;

// The same, counted only while the key is live, its workspace active and on plan $4: the API
// authenticates from a process cache (lib/keys/cache.ts), and this statement, which every
// rate-limited request runs anyway, confirms in the same round trip that what the cache said still
// holds. Nothing is counted for a key that is no longer live.
const consumeLiveKey = (p: (i: number) => string) => `
  INSERT INTO "RateWindow" AS w ("keyId", "startedAt", "count")
  SELECT k."id", now(), 1 FROM "ApiKey" k JOIN "Workspace" ws ON ws."id" = k."workspaceId"
  WHERE k."id" = ${p(1)}::int AND k."revokedAt" IS NULL AND (k."expiresAt" IS NULL OR k."expiresAt" > now())
    AND ws."active" AND ws."plan" = ${p(4)}::text${onConflict(p)}`;

const CONSUME_LIVE_KEY = consumeLiveKey(own);

/** One request of a key believed live on `plan`, to be counted (consumeLiveKeyRateBudget, liveKeyRateCte). */
export type LiveKeyRate = { keyId: number; plan: string; limit: number; windowSeconds: number };

/**
 * consumeLiveKeyRateBudget's statement as the CTE `rate` (one row, "count", or none) of a larger
 * statement, so a route's first read and the request's count share one round trip (lib/links/sql.ts
 * findLinksByCodeCountingRate). Its parameters follow the statement's own `before` ones, in the
 * order of liveKeyRateValues.
 */
export function liveKeyRateCte(before: number): string {
  return `rate AS (${consumeLiveKey((i) => `$${before + i}`)})`;
}

/**
 * After liveKeyRateCte(before), the CTE `rate_allows`: one row when the count allows the request,
 * none when it is over the limit or nothing was counted. A statement's writes select from it, so
 * a refused or uncounted request writes nothing (lib/links/create-sql.ts).
 */
export function liveKeyRateAllowsCte(before: number): string {
  return `rate_allows as (select 1 from rate where "count" <= $${before + 3}::int)`;
}

export function liveKeyRateValues(r: LiveKeyRate): unknown[] {
  return [r.keyId, r.windowSeconds, r.limit, r.plan];
}

/** The decision of a count read from liveKeyRateCte; null when nothing was counted (the key is not live). */
export function liveKeyRateDecision(count: number | string | null, limit: number): RateDecision | null {
  return count === null ? null : decision(Number(count), limit);
}

function decision(count: number, limit: number): RateDecision {
  return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count) };
}

/**
 * Counts one request against the key's budget in ONE atomic statement: insert the key's window,
 * or, on conflict, either restart it (the stored window has ended) or add one to its count. The
 * row lock taken by ON CONFLICT DO UPDATE serializes concurrent requests of one key, so exactly
 * `limit` requests per window are allowed. The count stops at limit + 1 (refusals need no more),
 * and the clock is the database's (now(): the statement's start), the same for every app process.
 * A named (prepared) statement: parsed and planned once per connection.
 */
export async function consumeRateBudget(keyId: number, limit: number, windowSeconds: number): Promise<RateDecision> {
  const { rows } = await database().rateLimit.query<{ count: number }>({
    name: "ratelimit_consume",
    text: CONSUME,
    values: [keyId, windowSeconds, limit],
  });
  return decision(Number(rows[0].count), limit);
}

/**
 * consumeRateBudget for a key the caller believes live on `plan`; null (nothing counted) when the
 * database says otherwise: the key was revoked or has expired, its workspace was switched off or
 * moved to another plan.
 */
export async function consumeLiveKeyRateBudget(
  keyId: number,
  plan: string,
  limit: number,
  windowSeconds: number,
): Promise<RateDecision | null> {
  const { rows } = await database().rateLimit.query<{ count: number }>({
    name: "ratelimit_consume_live_key",
    text: CONSUME_LIVE_KEY,
    values: [keyId, windowSeconds, limit, plan],
  });
  return rows.length ? decision(Number(rows[0].count), limit) : null;
}

/** The rate-limit headers an authenticated response owes (none when the plan has no rate). */
export function rateLimitHeaders(decision: RateDecision | null): Record<string, string> {
  if (!decision) return {};
  return { "X-RateLimit-Limit": String(decision.limit), "X-RateLimit-Remaining": String(decision.remaining) };
}
