-- Click analytics (lib/analytics): one row per redirect that reached a destination, bots included
-- (flagged). The table is partitioned by month (native declarative partitioning), which Prisma
-- cannot describe, so it lives in its own schema "analytics", outside the Prisma models (Prisma
-- manages only "public"). The app creates the coming months' partitions itself and drops old ones
-- after the longest plan retention (lib/analytics/partitions.ts).
-- Never stored: the visitor's IP address. "visitor" is an HMAC of address + User-Agent under a salt
-- that is replaced every UTC day and deleted two days later, so it cannot be recomputed later.
CREATE SCHEMA IF NOT EXISTS analytics;

CREATE TABLE analytics.click_event (
  at            timestamptz(3) NOT NULL,
  workspace_id  integer        NOT NULL,
  link_id       integer        NOT NULL,
  domain        text           NOT NULL,
  target        text           NOT NULL,
  country       text,
  city          text,
  referrer_host text,
  referrer_url  text,
  device        text           NOT NULL,
  browser       text,
  os            text,
  bot           boolean        NOT NULL DEFAULT false,
  qr            boolean        NOT NULL DEFAULT false,
  visitor       bigint         NOT NULL
) PARTITION BY RANGE (at);

-- every query is one workspace over a time range; per-link pages filter by link
CREATE INDEX click_event_workspace_at ON analytics.click_event (workspace_id, at);
CREATE INDEX click_event_link_at ON analytics.click_event (link_id, at);

-- one random salt per UTC day for the visitor keys, shared by every app process
CREATE TABLE analytics.visitor_salt (
  day  date  PRIMARY KEY,
  salt bytea NOT NULL
);
