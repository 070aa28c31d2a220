-- The click-event feed (lib/analytics/store/feed.ts): readers that must see every stored click
-- event once, in commit order (the ClickHouse sink, the link.clicked cursors), read "the events
-- after a position". A position is (tx, seq): tx is the writing transaction's id (xid8, never
-- wraps), seq a number from a sequence. A reader only takes rows whose transaction is below the
-- oldest one still running (pg_snapshot_xmin), so no row can later appear behind its position.
-- Events stored before this migration get tx 0 (before every later transaction) and seq in the
-- order the table is rewritten; a new reader starting at (0, 0) reads them too.
CREATE SEQUENCE analytics.click_event_seq AS bigint CACHE 100;

ALTER TABLE analytics.click_event
  ADD COLUMN tx xid8 NOT NULL DEFAULT '0',
  ADD COLUMN seq bigint NOT NULL DEFAULT nextval('analytics.click_event_seq');
ALTER TABLE analytics.click_event ALTER COLUMN tx SET DEFAULT pg_current_xact_id();

-- a batch is one transaction, so its rows share tx and take rising seq: inserts land at the right
-- edge of this index (cheap), and "after a position, in order, limited" is one range scan per partition
CREATE INDEX click_event_feed ON analytics.click_event (tx, seq);

-- where each reader of the feed is: "clickhouse" (the sink), "clicked:<endpointId>" (link.clicked)
CREATE TABLE analytics.click_cursor (
  name       text        PRIMARY KEY,
  tx         xid8        NOT NULL,
  seq        bigint      NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
