-- Daily rollups of click events (lib/analytics/rollup.ts), so reports over months do not scan
-- millions of events: per workspace, UTC day, bot flag and one dimension value, the clicks and the
-- unique visitors of that day. Visitor keys change every UTC day, so summing a day's unique
-- visitors over days is exactly the "unique visitors per day, summed" the reports give.
-- Built by the app's background job for each complete UTC day; a late event for a built day
-- removes its mark in click_day_done so the day is built again.
CREATE TABLE analytics.click_day (
  workspace_id integer NOT NULL,
  day          date    NOT NULL,
  bot          boolean NOT NULL,
  -- total, country, city, referrer, device, browser, os, link, qr
  dim          text    NOT NULL,
  -- the value as text; '' for none (city: city, tab, country)
  value        text    NOT NULL,
  clicks       integer NOT NULL,
  visitors     integer NOT NULL,
  PRIMARY KEY (workspace_id, dim, day, bot, value)
);
CREATE INDEX click_day_day ON analytics.click_day (day);

CREATE TABLE analytics.click_day_done (
  day      date        PRIMARY KEY,
  built_at timestamptz NOT NULL DEFAULT now()
);

-- building a day reads one day of events across workspaces: a BRIN index on the time fits rows
-- that arrive in time order
CREATE INDEX click_event_at_brin ON analytics.click_event USING brin (at);
