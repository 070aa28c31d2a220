import type pg from "pg";
import type { Link } from "../db/generated/client.ts";
import type { Queryable } from "../db/queryable.ts";
import { tagArgs, tagsCte } from "../tags/sql.ts";
import { takeAllowance } from "./allowance.ts";
import { SELECT_LINK, type NewLinkColumns } from "./sql.ts";

// Every create's statements (the shapes are chosen in create-plan.ts). One insert of Link with its
// ON CONFLICT (linkInsert), one quota fragment (allowance.ts takeAllowance), the tags in the same
// statement (lib/tags tagsCte), and the destination check that needs the database (no destination
// host may be a verified custom domain: rules.ts refusedDestinations), so it costs no read of its own.
//
// A single create is `createStatement`: ONE statement that inserts the link, its tags and LinkTag
// rows and, in one-statement form, takes one unit of the allowance. When a destination is refused,
// the allowance is spent or the code is taken, it raises (linkhop_refuse, migration
// *_link_create_refusal) and PostgreSQL keeps nothing. Guarded (a plan with webhooks), it writes
// nothing when the workspace has an enabled endpoint: an event may then be due, and the create
// is a transaction that records it (create.ts). The allowance row, which serializes the
// workspace's creates, is locked only inside the statement (or, in a transaction, from the
// reservation taken last to commit).

/** What a create statement refused; "endpoint": the guard found an enabled endpoint (nothing written). */
export type CreateRefusal = "destination" | "quota" | "taken" | "endpoint";

/** A refusal of createStatement, thrown (so it leaves a transaction, rolling it back). */
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

/** One link's row ($1..$16: newLinkValues) for linkInsert, when `go` has its row. */
const ONE_ROW = `select nextval('"Link_id_seq"'), $1::int, $2::int, $3::int, $4::text, $5::text, $6::text, $7::text, $8::text, $9::boolean,
    $10::timestamptz, $11::timestamptz, $12::int, $13::text, $14::text, $15::jsonb, $16::jsonb from go`;

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

type Shape = { allowance: boolean; guard: boolean; tags: boolean };

// after the link's $1..$16: $17 the destination hosts to refuse, then the tags' names and keys
// (tagArgs) when there are tags, then the month and the limit when the allowance is taken
const after = (n: number) => (i: number) => `$${n + i}`;
const ENDPOINTS = `select 1 from "WebhookEndpoint" e where e."workspaceId" = $1::int and e."enabled"`;
const VERIFIED = `select 1 from "Domain" d where d."host" = any($17::text[]) and d."verifiedAt" is not null`;

function statementText(s: Shape): string {
  const ctes = [`go as (select 1 ${s.guard ? `where not exists (${ENDPOINTS})` : ""})`];
  const month = s.tags ? 20 : 18;
  if (s.allowance) ctes.push(`allowance as (${takeAllowance((i) => ["$1", `$${month}`, "1", `$${month + 1}`][i - 1], "from go")})`);
  ctes.push(`inserted as (${linkInsert(ONE_ROW)})`);
  if (s.tags) {
    ctes.push(tagsCte((i) => ["$1", "$18", "$19"][i - 1], ", go"));
    ctes.push(`linked as (insert into "LinkTag" ("linkId", "tagId") select i."id", t."id" from inserted i, tags t)`);
  }
  const refusals = s.allowance
    ? `when not exists (select 1 from go) then null when not exists (select 1 from allowance) then 'quota' when inserted."id" is null then 'taken'`
    : "";
  const names = s.tags ? `(select coalesce(array_agg(t."name"), '{}') from tags t where inserted."id" is not null)` : `'{}'::text[]`;
  return `with ${ctes.join(", ")}
  select inserted.*, ${names} as "tagNames", not exists (select 1 from go) as "endpoint",
    linkhop_refuse(case when exists (${VERIFIED}) then 'destination' ${refusals} end) as "refused"
  from (select 1) as one left join inserted on true`;
}

const TEXTS = new Map<string, string>();

/** Raised by linkhop_refuse. */
const REFUSED = "LH001";

/**
 * A single create's statement: the link (columns `c`), its tags (`tags`: names) and, with
 * `allowance`, one unit of the month's allowance under its limit (at least 1), atomically;
 * `guard`: nothing when the workspace has an enabled endpoint (refused "endpoint"). Refusals are
 * thrown as CreateRefused in the order of a create's errors: destination (a host of
 * `destinationHosts` is a verified custom domain, 400), spent allowance (403), taken code (409).
 * Without `allowance` a taken code is no refusal: the answer is null (the caller's transaction goes on).
 */
export async function createStatement(
  q: Queryable | Pick<pg.ClientBase, "query">,
  c: NewLinkColumns,
  o: { allowance: { month: string; limit: number } | null; guard: boolean; tags: string[]; destinationHosts: string[] },
): Promise<{ link: Link; tagNames: string[] } | null> {
  if (o.allowance && !(o.allowance.limit >= 1)) throw new Error("a create statement needs a limit of at least 1");
  const shape = { allowance: o.allowance !== null, guard: o.guard, tags: o.tags.length > 0 };
  const name = `links_create${shape.allowance ? "" : "_in_tx"}${shape.guard ? "_guarded" : ""}${shape.tags ? "_tagged" : ""}`;
  if (!TEXTS.has(name)) TEXTS.set(name, statementText(shape));
  const values = [...newLinkValues(c), o.destinationHosts];
  if (shape.tags) values.push(...tagArgs(o.tags));
  if (o.allowance) values.push(o.allowance.month, o.allowance.limit);
  try {
    const { rows } = await q.query<Link & { tagNames: string[]; endpoint: boolean; refused: unknown }>({
      name,
      text: TEXTS.get(name)!,
      values,
    });
    const { tagNames, endpoint, refused: _, ...link } = rows[0];
    if (endpoint) throw new CreateRefused("endpoint");
    return link.id === null ? null : { link, tagNames };
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

const TAG_NEW = `with ${tagsCte(after(0))}, linked as (
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
