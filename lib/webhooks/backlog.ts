import { clickedBacklogByLink } from "../analytics/store/clicked-feed.ts";
import { database, db } from "../db/client.ts";
import { ALL_LINKS, inClickScope, type ScopedLink } from "../events/click-scope.ts";
import { receives } from "../events/subscription.ts";

// What an endpoint is owed and has not received yet, as the Developers page and the endpoint's page
// show it (app/w/[slug]/developers/backlog-line.tsx):
// - its deliveries due now and not yet sent (waiting for their turn under the plan's delivery rate,
//   lib/webhooks/pacing.ts, or for a slow receiver), and since when the oldest is due;
// - for an endpoint that receives link.clicked, the counted clicks in its click scope still behind
//   its cursor in the click-event feed (lib/clicks/clicked.ts writes their deliveries only as fast
//   as the endpoint takes them, docs/clicks.md), and the oldest one's time. The feed belongs to
//   lib/analytics (store/clicked-feed.ts counts, bounded); the scope and the links deleted since,
//   which the reader passes over, are applied here as the reader applies them.

/** Counted clicks behind an endpoint's link.clicked cursor: exact unless `atLeast` (the count's bound was reached). */
export type ClickBacklog = { count: number; atLeast: boolean; oldestAt: Date | null };

export type EndpointBacklog = {
  /** deliveries due now and not yet sent */
  count: number;
  oldestDueAt: Date | null;
  /** link.clicked owed as clicks behind the cursor; null when the endpoint does not receive link.clicked */
  clicks: ClickBacklog | null;
};

/** a link for asking the subscription rule with the scope left out (ALL_LINKS takes every link) */
const ANY_LINK: ScopedLink = { id: 0, folder: "", tagIds: [] };

/** link ids read per statement (the links of a backlog count are at most its bound) */
const LINK_CHUNK = 10_000;

/**
 * Per endpoint of the workspace (or only `endpointId`): its deliveries due now and not yet sent,
 * since when the oldest is due, and the link.clicked clicks still behind its cursor. Endpoints
 * without either are left out.
 */
export async function endpointBacklogs(
  workspaceId: number,
  opts: { endpointId?: number; now?: Date } = {},
): Promise<Map<number, EndpointBacklog>> {
  const now = opts.now ?? new Date();
  const only = opts.endpointId ?? null;
  const rows = await db().$queryRaw<{ endpointId: number; count: number; oldest: Date }[]>`
    SELECT d."endpointId", count(*)::int AS count, min(d."nextAttemptAt") AS oldest
      FROM "Delivery" d JOIN "WebhookEndpoint" e ON e.id = d."endpointId"
     WHERE e."workspaceId" = ${workspaceId} AND (${only}::int IS NULL OR e.id = ${only}::int)
       AND d.status = 'pending' AND NOT d."isTest" AND d."nextAttemptAt" <= ${now}
     GROUP BY d."endpointId"`;
  const backlogs = new Map<number, EndpointBacklog>(
    rows.map((r) => [r.endpointId, { count: r.count, oldestDueAt: r.oldest, clicks: null }]),
  );
  for (const [id, clicks] of await clickBacklogs(workspaceId, only)) {
    const b = backlogs.get(id);
    if (b) b.clicks = clicks;
    else backlogs.set(id, { count: 0, oldestDueAt: null, clicks });
  }
  return backlogs;
}

/** Per endpoint receiving link.clicked now, with a cursor: its clicks behind the cursor, in its scope, on links that still exist. */
async function clickBacklogs(workspaceId: number, only: number | null): Promise<Map<number, ClickBacklog>> {
  const workspace = await db().workspace.findUnique({ where: { id: workspaceId }, select: { active: true, plan: true } });
  if (!workspace) return new Map();
  const endpoints = await db().webhookEndpoint.findMany({
    where: { workspaceId, ...(only !== null ? { id: only } : {}), events: { has: "link.clicked" } },
    select: { id: true, enabled: true, allEvents: true, events: true, clickFolders: true, clickTagIds: true, clickLinkIds: true },
    orderBy: { id: "asc" },
  });
  const counted = [];
  for (const e of endpoints) {
    // one that does not receive link.clicked now (but for the scope) is owed nothing: the reader drops its cursor
    if (!receives({ ...e, ...ALL_LINKS, workspace }, "link.clicked", ANY_LINK)) continue;
    const byLink = await clickedBacklogByLink(database().analytics, workspaceId, e.id);
    if (byLink) counted.push({ endpoint: e, byLink });
  }
  const links = await scopedLinks(workspaceId, [...new Set(counted.flatMap((c) => [...c.byLink.links.keys()]))]);
  const result = new Map<number, ClickBacklog>();
  for (const { endpoint, byLink } of counted) {
    let count = 0;
    let oldest: number | null = null;
    for (const [linkId, n] of byLink.links) {
      const link = links.get(linkId);
      if (!link || !inClickScope(endpoint, link)) continue; // deleted since, or outside the scope: passed over
      count += n.count;
      oldest = oldest === null ? n.oldestAt : Math.min(oldest, n.oldestAt);
    }
    result.set(endpoint.id, { count, atLeast: byLink.atLeast, oldestAt: oldest === null ? null : new Date(oldest) });
  }
  return result;
}

/** The workspace's links among `ids` as the click scope reads them (folder and tag ids now). */
async function scopedLinks(workspaceId: number, ids: number[]): Promise<Map<number, ScopedLink>> {
  const links = new Map<number, ScopedLink>();
  for (let i = 0; i < ids.length; i += LINK_CHUNK) {
    const rows = await db().link.findMany({
      where: { workspaceId, id: { in: ids.slice(i, i + LINK_CHUNK) } },
      select: { id: true, folder: true, tags: { select: { tagId: true } } },
    });
    for (const r of rows) links.set(r.id, { id: r.id, folder: r.folder, tagIds: r.tags.map((t) => t.tagId) });
  }
  return links;
}
