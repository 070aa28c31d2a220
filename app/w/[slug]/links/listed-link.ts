import { toApiLink, type LinksListPage as ServicePage } from "@/lib/links";
import type { LinksListPage } from "./actions";

/** The list service's page as the Links page shows it: API link objects plus the last click (unix seconds). */
export function listedPage(page: ServicePage): LinksListPage {
  return {
    ...page,
    links: page.links.map((l) => ({
      ...toApiLink(l, l.host),
      lastClickedOn: l.lastClickedAt ? Math.floor(l.lastClickedAt.getTime() / 1000) : null,
    })),
  };
}
