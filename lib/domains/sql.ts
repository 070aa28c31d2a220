import type { Queryable } from "../db/queryable.ts";

// The domains area's raw SQL, for the one caller that runs outside Prisma: the on-demand TLS
// question (tls-ask.ts), asked on the redirect pool by server.ts.

/**
 * The host is a verified, active custom domain of an active workspace. One statement: the unique
 * index on Domain.verifiedHost finds the row (only a verified domain has a verifiedHost), the
 * workspace comes by its primary key.
 */
export async function isServedCustomHost(q: Queryable, host: string): Promise<boolean> {
  const { rows } = await q.query({
    name: "domains_tls_ask",
    text: `select 1 from "Domain" d join "Workspace" w on w.id = d."workspaceId"
           where d."verifiedHost" = $1 and d.active and w.active`,
    values: [host],
  });
  return rows.length > 0;
}
