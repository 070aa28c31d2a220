import { toApiLink, type LinksListPage as ServicePage } from "@/lib/links";
import type { LinksListPage } from "./actions";

/**
 * What a row of the list shows (link-row.tsx, link-state.ts, the bulk bar): every page of the list,
 * the first one in the page's payload included, carries only these, not the link's settings.
 */
export const ROW_FIELDS = [
  "id",
  "short",
  "url",
  "title",
  "active",
  "startsOn",
  "expiresOn",
  "maxClicks",
  "clicks",
  "hasPassword",
  "tags",
  "createdOn",
] as const;

/** The list service's page as the Links page shows it: the rows' fields plus the last click (unix seconds). */
export function listedPage(page: ServicePage): LinksListPage {
  return {
    ...page,
    links: page.links.map((l) => {
      const api = toApiLink(l, l.host);
      const row = Object.fromEntries(ROW_FIELDS.map((f) => [f, api[f]])) as Pick<typeof api, (typeof ROW_FIELDS)[number]>;
      return { ...row, lastClickedOn: l.lastClickedAt ? Math.floor(l.lastClickedAt.getTime() / 1000) : null };
    }),
  };
}
