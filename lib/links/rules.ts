import type { z } from "zod";
import { config } from "../config/index.ts";
import { database, type DbOrTx } from "../db/client.ts";
import { issueText, joinedIssueTexts, parseInput, ServiceError, type Issue } from "../errors.ts";
import type { Workspace } from "../db/generated/client.ts";
import { hasFeature, planOf, type Feature } from "../plans/index.ts";
import { defaultResolve, isOwnInterfaceAddress, isThisMachineName, reachesThisMachine } from "../net/index.ts";
import type { ResolvedDomain } from "./link-domain.ts";
import type { CreateLinkInput, UpdateLinkInput } from "./schemas.ts";
import { routingFeatures, routingUrls, storedRouting, type RoutingInput } from "./routing.ts";
import { verifiedDomainHosts } from "./sql.ts";

// The link rules that are not shapes: destinations, plan features and schedules (codes are in
// short-code.ts, domains in link-domain.ts). A refusal is a ServiceError (validation issues name
// the field, as in "url: ...").

// ---- Destinations ----

type DestinationFields = Pick<CreateLinkInput, "url" | "fallbackUrl" | "targeting"> & RoutingInput;

/** Every URL a link may send a visitor to, with the name of its field. */
export function destinationsOf(input: Partial<DestinationFields>): { field: string; url: string }[] {
  const out: { field: string; url: string }[] = [];
  if (input.url) out.push({ field: "url", url: input.url });
  if (input.fallbackUrl) out.push({ field: "fallbackUrl", url: input.fallbackUrl });
  const t = input.targeting;
  if (t?.ios) out.push({ field: "targeting.ios", url: t.ios });
  if (t?.android) out.push({ field: "targeting.android", url: t.android });
  for (const [cc, url] of Object.entries(t?.geo ?? {})) out.push({ field: `targeting.geo.${cc}`, url });
  return out.concat(routingUrls(input));
}

const bareHost = (host: string) => host.toLowerCase().replace(/\.$/, "");

/** True when `host` (a DESTINATION_DENYLIST entry's host) or one of its subdomains is the URL's host. */
export function isDenylisted(hostname: string, denylist: string[]): boolean {
  const h = bareHost(hostname);
  return denylist.some((d) => {
    const entry = bareHost(d);
    return entry !== "" && (h === entry || h.endsWith("." + entry));
  });
}

/** "name" and "port" of a configured host such as localhost:3000, [::1]:8080 or lnk.to (port ""). */
function splitHost(h: string): { name: string; port: string } | null {
  const m = /^(\[[^\]]*\]|[^:]+)(?::(\d+))?$/.exec(h.toLowerCase());
  return m ? { name: bareHost(m[1]), port: m[2] ?? "" } : null;
}

/**
 * Matches a URL against the service's own short-link hosts. A configured host with a port
 * (localhost:3000) matches only that host and port; one without a port matches the host on any port.
 * When a configured host is this machine (localhost, a loopback address), every destination that
 * reaches this machine stands for it on that port: 127.0.0.2, 0.0.0.0, [::ffff:127.0.0.1], *.localhost,
 * and (`reachesHere`, from reachesThisMachine) names that resolve to loopback. Without it, only the
 * forms that need no DNS count.
 */
export function isServiceHost(url: URL, hosts: string[], reachesHere = isThisMachineName(url.hostname)): boolean {
  const hostname = bareHost(url.hostname);
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  return hosts.some((h) => {
    const own = splitHost(h);
    if (!own) return false;
    return (own.name === hostname || (reachesHere && isThisMachineName(own.name))) && (!own.port || own.port === port);
  });
}

/**
 * How long a link save waits for DNS to tell whether a destination's name points at this machine.
 * Past it (or when the name does not resolve) the name counts as not pointing here.
 */
const THIS_MACHINE_DNS_TIMEOUT_MS = 1000;

/**
 * The destination host names (of `hostnames`) that reach this machine, when a short-link host is
 * this machine; else none are asked about (a public short domain cannot be reached through
 * loopback, and no DNS query is made). Names are resolved once each, in parallel, through
 * DNS_SERVERS or the system resolver, each within THIS_MACHINE_DNS_TIMEOUT_MS.
 */
async function namesReachingHere(hostnames: string[], own: string[]): Promise<Set<string>> {
  const here = new Set<string>();
  if (!own.some((h) => isThisMachineName(splitHost(h)?.name ?? ""))) return here;
  const resolve = defaultResolve(config().DNS_SERVERS);
  await Promise.all(
    hostnames.map(async (h) => {
      if (await reachesThisMachine(h, { resolve, timeoutMs: THIS_MACHINE_DNS_TIMEOUT_MS })) here.add(h);
    }),
  );
  return here;
}

/** The host names of a link's destinations, as refusedDestinations compares them with custom domains. */
export function destinationHostnames(input: Partial<DestinationFields>): string[] {
  return [...new Set(destinationsOf(input).map((d) => bareHost(new URL(d.url).hostname)))];
}

/**
 * Refuses destinations on DESTINATION_DENYLIST (the host or its subdomains) and any address that is
 * already a short link: SHORT_DOMAIN, the app's own host, or any verified custom domain of any
 * workspace, by name, and for a short-link host on this machine by address too (isServiceHost);
 * and any port of this machine's own non-loopback interface addresses (isOwnInterfaceAddress: the
 * server listens on them all). Returns one issue per refused URL.
 *
 * `verifiedDomains: "caller checks"` leaves out the read of verified custom domains: the caller's
 * own statement refuses a destination on one (the single create, create-sql.ts) and then asks
 * again with the read. Nothing else depends on that read: a destination host that is not a
 * verified domain gives the same answers either way.
 */
export async function refusedDestinations(
  inputs: Partial<DestinationFields>[],
  client?: DbOrTx,
  verifiedDomains: "read" | "caller checks" = "read",
): Promise<Issue[][]> {
  const cfg = config();
  const parsed = inputs.map((i) => destinationsOf(i).map((d) => ({ ...d, u: new URL(d.url) })));
  const hostnames = [...new Set(parsed.flat().map((d) => bareHost(d.u.hostname)))];
  // in a caller's transaction through Prisma; otherwise one prepared statement (sql.ts)
  const verified =
    !hostnames.length || verifiedDomains === "caller checks"
      ? []
      : client
        ? (await client.domain.findMany({ where: { host: { in: hostnames }, verifiedAt: { not: null } }, select: { host: true } })).map(
            (d) => d.host,
          )
        : await verifiedDomainHosts(database().prismaPool, hostnames);
  const own = [cfg.shortDomain, cfg.appHost, ...verified];
  const here = await namesReachingHere(hostnames, own);
  return parsed.map((list) =>
    list.flatMap(({ field, u }) => {
      if (isDenylisted(u.hostname, cfg.DESTINATION_DENYLIST))
        return [{ path: field, message: `the host ${u.hostname} is not allowed as a destination` }];
      if (isServiceHost(u, own, here.has(bareHost(u.hostname))) || isOwnInterfaceAddress(u.hostname))
        return [{ path: field, message: `${u.host} is a short-link host of this service; a link cannot point to a short link` }];
      return [];
    }),
  );
}

/**
 * Destinations of a stored link whose host is on DESTINATION_DENYLIST now (it may have been added
 * after the link was saved). Such a link does not redirect (withDenylist, in lib/redirects).
 */
export function denylistedDestinations(stored: {
  url: string | null;
  fallbackUrl: string | null;
  targeting: unknown;
  /** Link.routing: its variants, rules and preview image count as destinations too */
  routing?: unknown;
}): { field: string; host: string }[] {
  const denylist = config().DESTINATION_DENYLIST;
  if (denylist.length === 0) return [];
  const targeting =
    stored.targeting && typeof stored.targeting === "object" ? (stored.targeting as DestinationFields["targeting"]) : undefined;
  const { variants, rules, preview } = storedRouting(stored.routing);
  return destinationsOf({
    url: stored.url ?? undefined,
    fallbackUrl: stored.fallbackUrl ?? undefined,
    targeting,
    variants,
    rules,
    preview,
  }).flatMap(({ field, url }) => {
    try {
      const host = new URL(url).hostname;
      return isDenylisted(host, denylist) ? [{ field, host }] : [];
    } catch {
      return [];
    }
  });
}

/**
 * An edit of a link whose stored destination is denylisted must replace (or clear) that
 * destination: one issue per denylisted destination the patch leaves in place.
 */
export function keptDenylistedDestinations(
  stored: { url: string; fallbackUrl: string | null; targeting: unknown; routing: unknown },
  patch: { url?: string; fallbackUrl?: string | null; targeting?: unknown } & RoutingInput,
): Issue[] {
  const routing = storedRouting(stored.routing);
  const kept = denylistedDestinations({
    url: patch.url === undefined ? stored.url : null,
    fallbackUrl: patch.fallbackUrl === undefined ? stored.fallbackUrl : null,
    targeting: patch.targeting === undefined ? stored.targeting : null,
    routing: {
      variants: patch.variants === undefined ? routing.variants : undefined,
      rules: patch.rules === undefined ? routing.rules : undefined,
      preview: patch.preview === undefined ? routing.preview : undefined,
    },
  });
  return kept.map(({ field, host }) => ({
    path: field,
    message: `the host ${host} is not allowed as a destination any more; change ${field} to edit this link`,
  }));
}

// ---- Features ----

/** The plan features a create or edit asks for, in the order they are checked. Nulls (clearing) need none. */
export function featuresRequested(input: Partial<CreateLinkInput> | UpdateLinkInput, domain?: ResolvedDomain): Feature[] {
  const out: Feature[] = [];
  if (input.alias !== undefined) out.push("CustomAliases");
  if ((input.expiresOn ?? null) !== null || (input.startsOn ?? null) !== null) out.push("LinkExpiry");
  if ((input.password ?? null) !== null) out.push("LinkPasswords");
  if (domain && domain.domainId !== null) out.push("CustomDomains");
  return out.concat(routingFeatures(input));
}

/** 403 feature for the first requested feature the workspace's plan lacks. */
export function missingFeature(workspace: Pick<Workspace, "plan">, requested: Feature[]): ServiceError | null {
  const plan = planOf(workspace.plan);
  const missing = requested.find((f) => !hasFeature(plan, f));
  return missing ? ServiceError.feature(missing) : null;
}

type Schedule = { startsOn?: number | null; expiresOn?: number | null };

/** startsOn must come before expiresOn when a body sets both: the problem, or none. */
export function scheduleIssues(input: Schedule): Issue[] {
  if (input.startsOn != null && input.expiresOn != null && input.startsOn >= input.expiresOn)
    return [{ path: "startsOn", message: "must be before expiresOn" }];
  return [];
}

/** The same rule as one line ("startsOn: must be before expiresOn"), or null. */
export function scheduleProblem(input: Schedule): string | null {
  const [issue] = scheduleIssues(input);
  return issue ? issueText(issue) : null;
}

/** What the cheap pre-check decided for a create row: go on (hash, insert), or refuse now. */
export type CheapVerdict = "go" | "taken" | "quota";

/**
 * The cheap pre-check of create rows, taken in order as if one by one (docs/api.md: bulk rows are
 * checked one by one): a row past the allowance left (`left`, from the month's count read before
 * the transaction) is "quota"; else a row whose alias key is taken (in the database, reserved, or
 * by an earlier row going on) is "taken"; else it goes on and spends one unit. `current` is the
 * month's count the quota error reports (the count read plus the rows that go on). The database
 * still decides in the transaction (ON CONFLICT, the allowance row): this only refuses early, so a
 * refused row never has its password hashed.
 */
export function cheapVerdicts(
  aliasKeys: (string | null)[],
  isTaken: (key: string) => boolean,
  used: number,
  limit: number,
): { verdicts: CheapVerdict[]; current: number } {
  let left = limit - used;
  let going = 0;
  const claimed = new Set<string>();
  const verdicts = aliasKeys.map((key): CheapVerdict => {
    if (left <= 0) return "quota";
    if (key !== null && (claimed.has(key) || isTaken(key))) return "taken";
    if (key !== null) claimed.add(key);
    left--;
    going++;
    return "go";
  });
  return { verdicts, current: used + going };
}

/** A validation error of the link rules; its message is the "field: problem" lines, as the API lists them. */
export function linkValidation(issues: Issue[]): ServiceError {
  return ServiceError.validation(issues, joinedIssueTexts(issues));
}

/** Link input through one of the schemas of schemas.ts; refusals read "field: problem", as the API lists them. */
export function parseLinkInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  return parseInput(schema, input, { message: joinedIssueTexts });
}
