-- The link.clicked cursor reader (lib/analytics/store/clicked-feed.ts, readWorkspaceClicksAfter)
-- reads one workspace's feed rows after an endpoint's cursor, in commit order. Through the feed's
-- (tx, seq) index it visited every workspace's rows after the cursor; with the workspace first it
-- visits only its own. Like the feed index, each batch's rows land at the right edge of the
-- workspace's part of the index.
CREATE INDEX click_event_workspace_feed ON analytics.click_event (workspace_id, tx, seq);
