import type { GroupRow } from "../model.ts";
import { LINK_GROUPS, type LinkGroup } from "./dimensions.ts";
import type { Queryable } from "../../db/queryable.ts";

// Per-link figures of the rollups grouped as a report asks: per link, or by what the links are now
// (their tags, a UTM value of their URL: store/dimensions.ts LINK_GROUPS).

/** How per-link figures are grouped: per link, or by a link group. */
export type LinkGrouping = "link" | LinkGroup;

/**
 * Figures per link (`perLink` selects link_id, clicks, visitors, one row per link), grouped as `by`
 * says (a link with two tags counts for both). Summed per link first, so the join reads each link
 * once however many days the range has.
 */
export async function readLinkGroups(q: Queryable, by: LinkGrouping, perLink: string, values: unknown[]): Promise<GroupRow[]> {
  const join = by === "link" ? "" : LINK_GROUPS[by].join("p");
  const keys = by === "link" ? ["p.link_id"] : LINK_GROUPS[by].columns;
  const { rows } = await q.query<Record<string, unknown> & { clicks: number; visitors: number }>(
    `with per_link as (${perLink})
     select ${keys.map((k, i) => `${k} as k${i}`).join(", ")}, sum(p.clicks)::int as clicks, sum(p.visitors)::int as visitors
     from per_link p ${join} group by ${keys.join(", ")}`,
    values,
  );
  return rows.map((r) => ({ key: keys.map((_, i) => r[`k${i}`] as string | number | null), clicks: r.clicks, visitors: r.visitors }));
}

/**
 * readLinkGroups for several link groups over the same per-link figures, in one statement (a page's
 * tags and UTM panels): their rows in the order of `groups`.
 */
export async function readLinkGroupsAll(q: Queryable, groups: LinkGroup[], perLink: string, values: unknown[]): Promise<GroupRow[][]> {
  const width = Math.max(...groups.map((g) => LINK_GROUPS[g].columns.length));
  const selects = groups.map((g, i) => {
    const keys: readonly string[] = LINK_GROUPS[g].columns;
    const padded = Array.from({ length: width }, (_, k) => `${k < keys.length ? keys[k] : "null::text"} as k${k}`);
    return `select ${i} as g, ${padded.join(", ")}, sum(p.clicks)::int as clicks, sum(p.visitors)::int as visitors
     from per_link p ${LINK_GROUPS[g].join("p")} group by ${keys.join(", ")}`;
  });
  const { rows } = await q.query<Record<string, unknown> & { g: number; clicks: number; visitors: number }>(
    `with per_link as (${perLink})
     ${selects.join("\n     union all ")}`,
    values,
  );
  return groups.map((g, i) =>
    rows
      .filter((r) => r.g === i)
      .map((r) => ({
        key: LINK_GROUPS[g].columns.map((_, k) => r[`k${k}`] as string | null),
        clicks: r.clicks,
        visitors: r.visitors,
      })),
  );
}
