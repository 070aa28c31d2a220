import type pg from "pg";
import type { Link } from "../db/generated/client.ts";
import { INSERT_COLUMNS, INSERT_VALUES, newLinkValues, SELECT_LINK, type NewLinkColumns } from "./sql.ts";
import type { Queryable } from "../db/queryable.ts";

// A single create of a link without tags or event, as ONE autocommit statement: the link's insert
// and one unit of the workspace's monthly allowance (the fast path of allowance.ts
// reserveLinkAllowance), both or neither. It also makes the destination check that needs the
// database (no destination host may be a verified custom domain: rules.ts refusedDestinations), so
// a create costs no separate read for it. When a destination is refused, the allowance is spent or
// the code is taken, the statement raises (linkhop_refuse, migration *_link_create_refusal) and
// PostgreSQL rolls back what it did. One round trip instead of begin, insert, reserve, commit; and the allowance row, which
// serializes the workspace's creates, is locked only from inside this statement to its commit,
// never across a round trip to the app (where a busy process would make every other create of the
// workspace wait for it).

const INSERT_RESERVING = `
  with allowance as (
    insert into "MonthlyUsage" as u ("workspaceId", "month", "created") values ($1::int, $16::text, 1)
    on conflict ("workspaceId", "month") do update set "created" = u."created" + 1 where u."created" + 1 <= $17::int
    returning "created"
  ), inserted as (
    insert into "Link" as l ${INSERT_COLUMNS}
    values ${INSERT_VALUES}
    on conflict ("domainKey", "code") do nothing
    returning ${SELECT_LINK}
  )
  select inserted.*, linkhop_refuse(case when exists (select 1 from "Domain" d
                                                      where d."host" = any($18::text[]) and d."verifiedAt" is not null) then 'destination'
                                         when not exists (select 1 from allowance) then 'quota'
                                         when inserted."id" is null then 'taken' end) as "refused"
  from (select 1) as one left join inserted on true`;

/**
 * What the statement refused: a destination host is a verified custom domain (destination), the
 * allowance is spent (quota), or the code is taken on its domain (taken).
 */
export type CreateRefusal = "destination" | "quota" | "taken";
const REFUSALS: readonly string[] = ["destination", "quota", "taken"] satisfies CreateRefusal[];

/** Raised by linkhop_refuse. */
const REFUSED = "LH001";

/**
 * Inserts the link and takes one unit of the workspace's allowance for `month` under `limit` (at
 * least 1), atomically, unless one of `destinationHosts` is a verified custom domain; a refusal
 * leaves nothing behind. Reported in the order of a create's errors: destination (400), spent
 * allowance (403), taken code (409).
 */
export async function insertLinkReservingAllowance(
  q: Queryable | Pick<pg.ClientBase, "query">,
  c: NewLinkColumns,
  month: string,
  limit: number,
  destinationHosts: string[] = [],
): Promise<{ link: Link } | { refused: CreateRefusal }> {
  if (!(limit >= 1)) throw new Error("insertLinkReservingAllowance needs a limit of at least 1");
  try {
    const { rows } = await q.query<Link & { refused: unknown }>({
      name: "links_create_one",
      text: INSERT_RESERVING,
      values: [...newLinkValues(c), month, limit, destinationHosts],
    });
    const { refused: _, ...link } = rows[0];
    return { link };
  } catch (e) {
    const err = e as { code?: string; message?: string };
    if (err.code === REFUSED && REFUSALS.includes(err.message!)) return { refused: err.message as CreateRefusal };
    throw e;
  }
}
