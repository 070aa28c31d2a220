import pg from "pg";
import { compileRouting } from "./decide.ts";
import { locationUrl, parseTargeting, type RedirectLink } from "./lifecycle.ts";
import { parseRouting } from "./stored-routing.ts";
import type { Queryable } from "../db/queryable.ts";

// Every SQL statement of the redirect path, one named function each. They use a raw `pg` pool with
// named (prepared) statements instead of Prisma: a cache miss costs one round trip and about half
// of what the Prisma client takes here (measured in the shared ENVIRONMENT notes). Links and
// domains are only read here; a click's counter is written by lib/clicks (counters.ts).

type LinkRow = {
  id: number;
  workspace_id: number;
  domain_key: number;
  url: string;
  active: boolean;
  starts_on: number | null;
  expires_on: number | null;
  max_clicks: number | null;
  clicks: number;
  fallback_url: string | null;
  password_hash: string | null;
  targeting: unknown;
  routing: unknown;
};

/** The link at (domainKey, code) as the redirect path needs it; a switched-off workspace switches its links off. */
export async function findLinkForRedirect(q: Queryable, domainKey: number, code: string): Promise<RedirectLink | null> {
  const { rows } = await q.query<LinkRow>({
    name: "redirect_find_link",
    text: `select l.id, l."workspaceId" as workspace_id, l."domainKey" as domain_key, l.url, (l.active and w.active) as active,
              (extract(epoch from l."startsOn") * 1000)::float8 as starts_on,
              (extract(epoch from l."expiresOn") * 1000)::float8 as expires_on,
              l."maxClicks" as max_clicks, l.clicks, l."fallbackUrl" as fallback_url,
              l."passwordHash" as password_hash, l.targeting, l.routing
           from "Link" l join "Workspace" w on w.id = l."workspaceId"
           where l."domainKey" = $1 and l.code = $2`,
    values: [domainKey, code],
  });
  const r = rows[0];
  if (!r) return null;
  const url = locationUrl(r.url) ?? r.url;
  const targeting = parseTargeting(r.targeting);
  const routing = parseRouting(r.routing);
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    domainKey: r.domain_key,
    url,
    active: r.active,
    startsOn: r.starts_on,
    expiresOn: r.expires_on,
    maxClicks: r.max_clicks,
    clicks: r.clicks,
    fallbackUrl: locationUrl(r.fallback_url),
    passwordHash: r.password_hash,
    targeting,
    routing: compileRouting(url, routing, targeting),
  };
}

/** Verified, active custom domains: host -> id. The whole table is small enough to mirror in memory. */
export async function loadServedDomains(q: Queryable): Promise<Map<string, number>> {
  const { rows } = await q.query<{ id: number; host: string }>({
    name: "redirect_served_domains",
    text: `select id, host from "Domain" where "verifiedAt" is not null and active`,
  });
  return new Map(rows.map((r) => [r.host.toLowerCase(), r.id]));
}

/** The PasswordGuess row that counts a link's guesses from every visitor (visitor keys are hex hashes). */
export const ALL_VISITORS = "*";

export type GuessWindows = { visitorLimit: number; visitorWindowSeconds: number; linkWindowSeconds: number };

/**
 * Takes one password guess for (link, visitor), and, while the visitor is within their limit, one
 * from the link's count across all visitors: each in a fixed window that starts at its first
 * guess, in one statement (parallel guesses cannot slip past either limit). A visitor over their
 * own limit does not add to the link's count, so one address cannot lock everyone else out.
 * Returns the guesses in each window, this one included (link: null when not counted).
 */
export async function consumePasswordGuesses(
  q: Queryable,
  linkId: number,
  visitor: string,
  w: GuessWindows,
): Promise<{ visitor: number; link: number | null }> {
  const { rows } = await q.query<{ visitor: number; link: number | null }>({
    name: "redirect_consume_guesses",
    text: `with v as (
             insert into "PasswordGuess" ("linkId", visitor, "startedAt", count) values ($1, $2, now(), 1)
             on conflict ("linkId", visitor) do update set
               "startedAt" = case when "PasswordGuess"."startedAt" <= now() - make_interval(secs => $3) then now() else "PasswordGuess"."startedAt" end,
               count = case when "PasswordGuess"."startedAt" <= now() - make_interval(secs => $3) then 1 else "PasswordGuess".count + 1 end
             returning count
           ), l as (
             insert into "PasswordGuess" ("linkId", visitor, "startedAt", count)
             select $1, $4, now(), 1 from v where v.count <= $5
             on conflict ("linkId", visitor) do update set
               "startedAt" = case when "PasswordGuess"."startedAt" <= now() - make_interval(secs => $6) then now() else "PasswordGuess"."startedAt" end,
               count = case when "PasswordGuess"."startedAt" <= now() - make_interval(secs => $6) then 1 else "PasswordGuess".count + 1 end
             returning count
           )
           select v.count as visitor, (select count from l) as link from v`,
    values: [linkId, visitor, w.visitorWindowSeconds, ALL_VISITORS, w.visitorLimit, w.linkWindowSeconds],
  });
  return rows[0];
}

/** Gives back a guess that turned out right, to the visitor and to the link: only wrong guesses use up the allowances. */
export async function refundPasswordGuess(q: Queryable, linkId: number, visitor: string): Promise<void> {
  await q.query({
    name: "redirect_refund_guess",
    text: `update "PasswordGuess" set count = greatest(count - 1, 0) where "linkId" = $1 and visitor in ($2, $3)`,
    values: [linkId, visitor, ALL_VISITORS],
  });
}

/** Forgets guess windows that have ended. */
export async function prunePasswordGuesses(q: Queryable, windowSeconds: number): Promise<number> {
  const { rowCount } = await q.query({
    name: "redirect_prune_guesses",
    text: `delete from "PasswordGuess" where "startedAt" <= now() - make_interval(secs => $1)`,
    values: [windowSeconds],
  });
  return rowCount ?? 0;
}
