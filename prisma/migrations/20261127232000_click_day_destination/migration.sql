-- Top destinations under one dimension filter (country, referrer, device, browser, OS or QR) from
-- the daily rollups (lib/analytics/store/rollup-build.ts builds these with click_day; store/plan.ts
-- reads them). Destinations are long URLs, many per workspace: the rows keep a fixed-width key of
-- each (md5 of the URL as a uuid, 16 bytes) instead of the URL, and the URL is kept once per
-- workspace in click_destination. Every (filter value, destination) pair of a day is kept, so sums
-- over days are exact.
CREATE TABLE analytics.click_day_destination (
  workspace_id integer NOT NULL,
  day          date    NOT NULL,
  bot          boolean NOT NULL,
  fdim         text    NOT NULL,
  fvalue       text    NOT NULL,
  dest         uuid    NOT NULL,
  clicks       integer NOT NULL,
  visitors     integer NOT NULL,
  -- clicks and visitors in the index: reports read the index alone
  PRIMARY KEY (workspace_id, fdim, fvalue, day, bot, dest) INCLUDE (clicks, visitors)
);
-- rows arrive a day at a time: for rebuilding a day and for retention
CREATE INDEX click_day_destination_day ON analytics.click_day_destination USING brin (day);

-- The URL of each key, per workspace; last_day is the latest day whose rollups name it, so
-- retention forgets a URL only after every row naming it.
CREATE TABLE analytics.click_destination (
  workspace_id integer NOT NULL,
  dest         uuid    NOT NULL,
  url          text    NOT NULL,
  last_day     date    NOT NULL,
  PRIMARY KEY (workspace_id, dest)
);

-- The rollups are derived data: emptied here, and the background job builds every day again (with
-- the new rows); until a day is built, reports read its raw events.
TRUNCATE analytics.click_day, analytics.click_day_link, analytics.click_day_done;
