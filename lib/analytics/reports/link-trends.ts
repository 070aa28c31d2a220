import { realTimeNow } from "../../clock.ts";
import { db } from "../../db/client.ts";
import type { LinkWorkspace } from "../../links/index.ts";
import { analyticsRetentionDays, planOf } from "../../plans/index.ts";
import { DAY_MS, utcDay, type ClickStore } from "../model.ts";
import { reportStore } from "../store/instance.ts";

// The small click trend beside each link of the Links list: clicks per UTC day over the last
// TREND_DAYS days (today included), read from the click store like every other report (daily rollups
// for past days, the events for today). One timeseries query per link, for at most TREND_MAX_LINKS
// links (a page of the list) and TREND_PARALLEL at a time: the work per request is bounded. Ids that
// are not links of the workspace are dropped first (the store's link filter expects checked ids).

export const TREND_DAYS = 14;
export const TREND_MAX_LINKS = 100;
const TREND_PARALLEL = 4;

/** Clicks per day, oldest first (TREND_DAYS numbers), for each of the links, by id. */
export async function linkTrends(
  workspace: LinkWorkspace,
  linkIds: number[],
  now = realTimeNow(),
  store: ClickStore = reportStore(),
): Promise<Record<number, number[]>> {
  const asked = [...new Set(linkIds)].slice(0, TREND_MAX_LINKS);
  const owned = await db().link.findMany({ where: { workspaceId: workspace.id, id: { in: asked } }, select: { id: true } });
  const ids = owned.map((l) => l.id);
  const lastDay = utcDay(now);
  const firstDay = Math.max(lastDay - TREND_DAYS + 1, utcDay(now - analyticsRetentionDays(planOf(workspace.plan)) * DAY_MS));
  const start = new Date(firstDay * DAY_MS);
  const end = new Date((lastDay + 1) * DAY_MS);
  const trends: Record<number, number[]> = {};
  const queue = [...ids];
  async function worker() {
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
      const days = new Array<number>(TREND_DAYS).fill(0);
      const buckets = await store.query({
        kind: "timeseries",
        query: { workspaceId: workspace.id, start, end, filters: { linkId: id, bots: "exclude" } },
        unit: "day",
        timezone: "UTC",
      });
      for (const b of buckets) {
        const index = utcDay(b.start.getTime()) - (lastDay - TREND_DAYS + 1);
        if (index >= 0 && index < TREND_DAYS) days[index] += b.clicks;
      }
      trends[id] = days;
    }
  }
  await Promise.all(Array.from({ length: Math.min(TREND_PARALLEL, ids.length) }, worker));
  return trends;
}
