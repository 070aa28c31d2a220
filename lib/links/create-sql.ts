import type pg from "pg";
import type { Link } from "../db/generated/client.ts";
import type { Queryable } from "../db/queryable.ts";
import { eventValues, recordEventCte, type EventParts } from "../events/sql.ts";
import { liveKeyRateAllowsCte, liveKeyRateCte, liveKeyRateDecision, liveKeyRateValues, type LiveKeyRate } from "../ratelimit/index.ts";
import { tagArgs, tagsCte } from "../tags/sql.ts";
import { allowanceUsedSql, takeAllowance } from "./allowance.ts";
import { SELECT_LINK, type NewLinkColumns } from "./sql.ts";

// Every create's statements (the shapes are chosen in create-plan.ts). One insert of Link with its
// ON CONFLICT (linkInsert), one quota fragment (allowance.ts takeAllowance), the tags in the same
// statement (lib/tags tagsCte), the event in the same statement (lib/events recordEventCte), and the
// destination check that needs the database (no destination host may be a verified custom domain:
// rules.ts refusedDestinations), so it costs no read of its own.
//
// A single create is `createStatement`: ONE autocommit statement that inserts the link, takes one
// unit of the allowance and, when asked, writes its tags and LinkTag rows and its link.created event
// with a delivery per receiving endpoint. When a destination is refused, the allowance is spent or
// the code is taken, it raises (linkhop_refuse, migration *_link_create_refusal) and PostgreSQL keeps
// nothing. Its text follows its shape: a part the create does not need (tags, event, destination
// check) is not in the text, so it costs nothing. The allowance row, which serializes the
// workspace's creates, is locked only inside the statement.
//
// An API request on a plan with a rate is counted in the same statement (`rate`: lib/ratelimit
// liveKeyRateCte, create-plan.ts): data-modifying CTEs always run, so every write selects from
// `rate_allows`, which has a row only when the count allows the request. Over the limit, or for a
// key no longer live (nothing counted), the statement writes nothing and refuses nothing; it
// answers the count alone (RateStopped). The count's RateWindow row is locked before the link and
// the allowance row (the writes read the count first); no other statement holds the allowance
// row while it waits for a RateWindow row (bulk and the reads count in statements of their own).

/** What a create statement refused. */
export type CreateRefusal = "destination" | "quota" | "taken";

/** A refusal of createStatement, thrown. */
export class CreateRefused extends Error {
  constructor(readonly reason: CreateRefusal) {
    super(`create refused: ${reason}`);
  }
}

const LINK_INSERT_COLUMNS = `"id", "workspaceId", "domainId", "domainKey", "code", "url", "title", "notes", "folder", "active",
    "startsOn", "expiresOn", "maxClicks", "fallbackUrl", "passwordHash", "targeting", "routing"`;

/** THE insert of links: the rows of `source` (LINK_INSERT_COLUMNS in order); a code taken on its domain inserts nothing. */
const linkInsert = (source: string) => `
  insert into "Link" as l (${LINK_INSERT_COLUMNS})
  ${source}
  on conflict ("domainKey", "code") do nothing
  returning ${SELECT_LINK}`;

/** One link's row ($1..$16: newLinkValues) for linkInsert. */
const ONE_ROW = `select nextval('"Link_id_seq"'), $1::int, $2::int, $3::int, $4::text, $5::text, $6::text, $7::text, $8::text, $9::boolean,
    $10::timestamptz, $11::timestamptz, $12::int, $13::text, $14::text, $15::jsonb, $16::jsonb`;

/** Rows of arrays ($1..$17: ids (null: a new one) first, then the columns of newLinkValues) for linkInsert. */
const MANY_ROWS = `select coalesce(r."id", nextval('"Link_id_seq"')), r."workspaceId", r."domainId", r."domainKey", r."code", r."url", r."title",
    r."notes", r."folder", r."active", r."startsOn", r."expiresOn", r."maxClicks", r."fallbackUrl", r."passwordHash", r."targeting", r."routing"
  from unnest($1::int[], $2::int[], $3::int[], $4::int[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::boolean[],
    $11::timestamptz[], $12::timestamptz[], $13::int[], $14::text[], $15::text[], $16::jsonb[], $17::jsonb[]) as r(${LINK_INSERT_COLUMNS})`;

/** The values of ONE_ROW. */
export function newLinkValues(c: NewLinkColumns): unknown[] {
  const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));
  const values: unknown[] = [c.workspaceId, c.domainId, c.domainKey, c.code, c.url, c.title, c.notes, c.folder, c.active];
  return values.concat(c.startsOn, c.expiresOn, c.maxClicks, c.fallbackUrl, c.passwordHash, json(c.targeting), json(c.routing));
}

type Shape = { hosts: boolean; tags: boolean; event: boolean; rate: boolean };

/** The statement's parameters after the link's $1..$16, in this order, those of its shape only. */
function parameters(s: Shape) {
  let n = 16;
  const next = (count: number) => {
    const first = n + 1;
    n += count;
    return (i: number) => `$${first + i - 1}`;
  };
  const hosts = s.hosts ? next(1) : null;
  const tags = s.tags ? next(2) : null;
  const allowance = next(2);
  const event = s.event ? next(5) : null;
  // the rate's four (lib/ratelimit liveKeyRateValues) follow the statement's parameters before them
  const rateBefore = s.rate ? n : null;
  if (s.rate) next(4);
  return { hosts, tags, allowance, event, rateBefore };
}

/** Whether a host of the text[] parameter `hosts` is a verified custom domain: a destination no link may have (rules.ts refusedDestinations). */
const verifiedHostAmong = (hosts: string) =>
  `exists (select 1 from "Domain" d where d."host" = any(${hosts}::text[]) and d."verifiedAt" is not null)`;

/** The holes of the link.created event's body: the new link's id and createdOn (unix seconds); the event is stamped with the link's createdAt. */
const EVENT_HOLES = [`inserted."id"::text`, `floor(extract(epoch from inserted."createdAt"))::bigint::text`];

function statementText(s: Shape): string {
  const p = parameters(s);
  const allowance = (i: number) => ["$1", p.allowance(1), "1", p.allowance(2)][i - 1];
  const rated = p.rateBefore !== null;
  const ctes = rated ? [liveKeyRateCte(p.rateBefore!), liveKeyRateAllowsCte(p.rateBefore!)] : [];
  ctes.push(
    `allowance as (${takeAllowance(allowance, rated ? "from rate_allows" : "")})`,
    `inserted as (${linkInsert(rated ? `${ONE_ROW} from rate_allows` : ONE_ROW)})`,
  );
  if (p.tags) {
    const tags = p.tags;
    ctes.push(tagsCte((i) => ["$1", tags(1), tags(2)][i - 1], rated ? ", rate_allows" : ""));
    ctes.push(`linked as (insert into "LinkTag" ("linkId", "tagId") select i."id", t."id" from inserted i, tags t)`);
  }
  if (p.event) ctes.push(recordEventCte(p.event, "inserted", EVENT_HOLES, `inserted."createdAt"`));
  const verified = p.hosts ? `when ${verifiedHostAmong(p.hosts(1))} then 'destination'` : "";
  const names = p.tags ? `(select coalesce(array_agg(t."name"), '{}') from tags t where inserted."id" is not null)` : `'{}'::text[]`;
  // the new deliveries' ids and their endpoints, in the same order
  const ofDeliveries = (column: string) =>
    p.event ? `(select coalesce(array_agg(d."${column}" order by d."id"), '{}') from event_deliveries d)` : `'{}'::int[]`;
  // over the limit or uncounted: nothing written, nothing refused
  const stopped = rated ? `when not exists (select 1 from rate_allows) then null` : "";
  const count = rated ? `(select "count" from rate) as "rateCount", ` : "";
  return `with ${ctes.join(", ")}
  select inserted.*, ${names} as "tagNames", ${ofDeliveries("id")} as "deliveries", ${ofDeliveries("endpointId")} as "deliveryEndpoints", ${count}
    linkhop_refuse(case ${stopped} ${verified} when not exists (select 1 from allowance) then 'quota' when inserted."id" is null then 'taken' end) as "refused"
  from (select 1) as one left join inserted on true`;
}

const TEXTS = new Map<string, string>();

/** Raised by linkhop_refuse. */
const REFUSED = "LH001";

/**
 * What a create statement wrote: the link, its tags' names, the new deliveries of its event and
 * their endpoints, in the same order (to hand off after it), and the request's rate count when it
 * was counted in it (else null).
 */
export type Created = { link: Link; tagNames: string[]; deliveries: number[]; deliveryEndpoints: number[]; rateCount: number | null };

/**
 * createStatement with a rate wrote nothing: its count did not allow the create (over the limit),
 * or is null (nothing counted: the key is no longer live).
 */
export class RateStopped extends Error {
  constructor(readonly rateCount: number | null) {
    super("create not allowed by its rate count");
  }
}

/**
 * A single create's statement: the link (columns `c`), its tags (`tags`: names), its event (`event`,
 * with the holes of EVENT_HOLES and at "statement": eventWithHoles) and one unit of the month's allowance under its
 * limit (at least 1), atomically. Refusals are thrown as CreateRefused in the order of a create's
 * errors: destination (a host of `destinationHosts` is a verified custom domain, 400), spent
 * allowance (403), taken code (409); nothing is written then, the rate count included. With `rate`,
 * the request is counted first; a count that does not allow it is thrown as RateStopped.
 */
export async function createStatement(
  q: Queryable | Pick<pg.ClientBase, "query">,
  c: NewLinkColumns,
  o: {
    allowance: { month: string; limit: number };
    tags: string[];
    destinationHosts: string[];
    event?: EventParts | null;
    rate?: LiveKeyRate | null;
  },
): Promise<Created> {
  if (!(o.allowance.limit >= 1)) throw new Error("a create statement needs a limit of at least 1");
  const shape = { hosts: o.destinationHosts.length > 0, tags: o.tags.length > 0, event: !!o.event, rate: !!o.rate };
  const name = `links_create${shape.hosts ? "_checked" : ""}${shape.tags ? "_tagged" : ""}${shape.event ? "_event" : ""}${shape.rate ? "_rated" : ""}`;
  if (!TEXTS.has(name)) TEXTS.set(name, statementText(shape));
  const values = newLinkValues(c);
  if (shape.hosts) values.push(o.destinationHosts);
  if (shape.tags) values.push(...tagArgs(o.tags));
  values.push(o.allowance.month, o.allowance.limit);
  if (o.event) values.push(...eventValues(o.event));
  if (o.rate) values.push(...liveKeyRateValues(o.rate));
  try {
    const { rows } = await q.query<
      Link & { tagNames: string[]; deliveries: number[]; deliveryEndpoints: number[]; rateCount?: number | null; refused: unknown }
    >({
      name,
      text: TEXTS.get(name)!,
      values,
    });
    const { tagNames, deliveries, deliveryEndpoints, rateCount, refused: _, ...link } = rows[0];
    if (o.rate && link.id === null) throw new RateStopped(rateCount ?? null);
    return { link, tagNames, deliveries, deliveryEndpoints, rateCount: rateCount ?? null };
  } catch (e) {
    const err = e as { code?: string; message?: string };
    if (err.code === REFUSED && ["destination", "quota", "taken"].includes(err.message!))
      throw new CreateRefused(err.message as CreateRefusal);
    throw e;
  }
}

/** Inserts links in one statement (ids given, in the caller's order); returns those whose code was free. */
export async function insertLinks(q: Pick<pg.ClientBase, "query">, rows: (NewLinkColumns & { id: number | null })[]): Promise<Link[]> {
  const columns = Array.from({ length: 17 }, (_, k) => rows.map((r) => [r.id, ...newLinkValues(r)][k]));
  return (await q.query<Link>({ name: "links_insert_many", text: linkInsert(MANY_ROWS), values: columns })).rows;
}

/** `n` new link ids, ascending: a bulk create's links keep their rows' order though inserted in code order. */
export async function newLinkIds(q: Pick<pg.ClientBase, "query">, n: number): Promise<number[]> {
  const { rows } = await q.query<{ id: number }>({
    name: "links_new_ids",
    text: `select nextval('"Link_id_seq"')::int as id from generate_series(1, $1::int)`,
    values: [n],
  });
  return rows.map((r) => r.id).sort((a, b) => a - b);
}

/** Deletes new links again (a bulk create's rows past the allowance). */
export async function dropNewLinks(q: Pick<pg.ClientBase, "query">, ids: number[]): Promise<void> {
  await q.query({ name: "links_drop_new", text: `delete from "Link" where "id" = any($1::int[])`, values: [ids] });
}

const TAG_NEW = `with ${tagsCte((i) => `$${i}`)}, linked as (
    insert into "LinkTag" ("linkId", "tagId")
    select p."linkId", t."id" from unnest($4::int[], $5::text[]) as p("linkId", "nameKey") join tags t on t."nameKey" = p."nameKey"
  )
  select "id", "name", "nameKey" from tags`;

/** Gives new links their tags (`keys[i]`: tag keys of `linkIds[i]`, each once), creating missing ones; returns the tags by key. */
export async function tagNewLinks(
  q: Pick<pg.ClientBase, "query">,
  workspaceId: number,
  names: string[],
  pairs: { linkId: number; key: string }[],
): Promise<Map<string, { id: number; name: string }>> {
  const [tagNames, keys] = tagArgs(names);
  const { rows } = await q.query<{ id: number; name: string; nameKey: string }>({
    name: "links_tag_new",
    text: TAG_NEW,
    values: [workspaceId, tagNames, keys, pairs.map((p) => p.linkId), pairs.map((p) => p.key)],
  });
  return new Map(rows.map((t) => [t.nameKey, t]));
}

/** What precheckStatement read: every refusal it found (a create answers the first, in create.ts's order), and the request's count. */
export type Prechecked = {
  /** a destination host is a verified custom domain */
  destination: boolean;
  /** links created this month so far */
  used: number;
  /** the alias is taken on its domain */
  taken: boolean;
  /** the request's count when it was counted here (else null) */
  rateCount: number | null;
};

/**
 * A create with a password, before its hash (create-plan.ts "pre-check"): ONE statement reads what
 * the create statement would refuse (a destination that is a verified custom domain, the month's
 * allowance used, the alias taken) and, with `rate`, counts the request (lib/ratelimit
 * liveKeyRateCte), so neither a refused nor an over-limit create costs a hash. It writes nothing but
 * the count. A count that does not allow the create is thrown as RateStopped. The create statement
 * decides again, atomically, after the hash.
 */
export async function precheckStatement(
  q: Queryable | Pick<pg.ClientBase, "query">,
  o: {
    workspaceId: number;
    month: string;
    destinationHosts: string[];
    alias: { domainKey: number; code: string } | null;
    rate: LiveKeyRate | null;
  },
): Promise<Prechecked> {
  const values: unknown[] = [o.workspaceId, o.month];
  const next = (...v: unknown[]) => {
    values.push(...v);
    return values.length - v.length + 1;
  };
  const hosts = o.destinationHosts.length ? next(o.destinationHosts) : null;
  const alias = o.alias ? next(o.alias.domainKey, o.alias.code) : null;
  const rateBefore = o.rate ? values.length : null;
  if (o.rate) values.push(...liveKeyRateValues(o.rate));
  const name = `links_precheck${hosts ? "_checked" : ""}${alias ? "_alias" : ""}${o.rate ? "_rated" : ""}`;
  if (!TEXTS.has(name))
    TEXTS.set(
      name,
      `${rateBefore !== null ? `with ${liveKeyRateCte(rateBefore)} ` : ""}select
        ${hosts ? verifiedHostAmong(`$${hosts}`) : "false"} as "destination",
        ${allowanceUsedSql((i) => `$${i}`)} as "used",
        ${alias ? `exists (select 1 from "Link" l where l."domainKey" = $${alias}::int and l."code" = $${alias + 1}::text)` : "false"} as "taken",
        ${rateBefore !== null ? `(select "count" from rate)` : "null::int"} as "rateCount"`,
    );
  const { rows } = await q.query<Prechecked>({ name, text: TEXTS.get(name)!, values });
  const checked = { ...rows[0], rateCount: rows[0].rateCount === null ? null : Number(rows[0].rateCount) };
  if (o.rate && !liveKeyRateDecision(checked.rateCount, o.rate.limit)?.allowed) throw new RateStopped(checked.rateCount);
  return checked;
}
