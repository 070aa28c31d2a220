-- Daily rollups per pair of dimensions (lib/analytics/rollup-sql.ts), so a report filtered by one
-- dimension (country, city, referrer, device, browser, OS or QR) over months reads rollups too:
-- a row is now "on this day, among the clicks whose <fdim> was <fvalue>, the clicks and unique
-- visitors of each <dim> value"; fdim = '' is the unfiltered row as before. The rollups are derived
-- data: they are emptied here and the background job builds every day again.
TRUNCATE analytics.click_day, analytics.click_day_done;
ALTER TABLE analytics.click_day
  ADD COLUMN fdim   text NOT NULL DEFAULT '',
  ADD COLUMN fvalue text NOT NULL DEFAULT '',
  DROP CONSTRAINT click_day_pkey,
  ADD PRIMARY KEY (workspace_id, fdim, fvalue, dim, day, bot, value);

-- Daily rollups per link and filter value (lib/analytics/rollup-link-sql.ts), for the reports that
-- group by link (links, tags, UTM values) under one filter: per workspace, UTC day, bot flag, filter
-- dimension and value, and link, the clicks and that day's unique visitors. Built with click_day.
CREATE TABLE analytics.click_day_link (
  workspace_id integer NOT NULL,
  day          date    NOT NULL,
  bot          boolean NOT NULL,
  fdim         text    NOT NULL,
  fvalue       text    NOT NULL,
  link_id      integer NOT NULL,
  clicks       integer NOT NULL,
  visitors     integer NOT NULL,
  PRIMARY KEY (workspace_id, fdim, fvalue, day, bot, link_id)
);
CREATE INDEX click_day_link_day ON analytics.click_day_link (day);
