-- The Links page's sorts (lib/links/list-page.ts): by clicks and by the last click, each read in
-- index order for a page (LIMIT/OFFSET, the offset bounded by the page's counted cap). Descending
-- is a forward scan, ascending a backward one; so the last click sorts never-clicked links last
-- when newest first and first when oldest first (NULLS LAST here, which Prisma's schema cannot
-- state and its diff does not compare). "lastClickedAt" is set by the click flush (lib/clicks/counters.ts).
ALTER TABLE "Link" ADD COLUMN "lastClickedAt" TIMESTAMPTZ(3);
CREATE INDEX "Link_workspaceId_clicks_id_idx" ON "Link"("workspaceId", "clicks" DESC, "id" DESC);
CREATE INDEX "Link_workspaceId_lastClickedAt_id_idx" ON "Link"("workspaceId", "lastClickedAt" DESC NULLS LAST, "id" DESC);

-- The flush stamps "lastClickedAt" on every clicked link, like clicks: that must not notify the
-- redirect caches either (20261122081500_redirects_notify), or each flush would empty them.
DROP TRIGGER "Link_notify_update" ON "Link";
CREATE TRIGGER "Link_notify_update" AFTER UPDATE ON "Link"
  FOR EACH ROW
  WHEN ((to_jsonb(OLD) - 'clicks' - 'updatedAt' - 'lastClickedAt') IS DISTINCT FROM (to_jsonb(NEW) - 'clicks' - 'updatedAt' - 'lastClickedAt')
        OR NEW."clicks" < OLD."clicks")
  EXECUTE FUNCTION linkhop_notify_link();
