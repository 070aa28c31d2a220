-- The per-link rollup rows are read for a set of links (a link, folder or tag filter) and for one
-- filter value across every link (a filtered report grouped by link): the key is link first, and
-- the second kind is read through PostgreSQL's skip scan over the links. Clicks and visitors are in
-- the index, so reports read the index alone. The index on the day (for rebuilding a day and for
-- retention) becomes a BRIN index: rows arrive a day at a time, and a btree on the day alone looked
-- cheaper to the planner than the skip scan for short ranges while reading every row of those days.
-- Rows per city are added: the rollups are emptied and every day is built again by the next run of
-- the hourly job.
TRUNCATE analytics.click_day, analytics.click_day_link, analytics.click_day_done;
ALTER TABLE analytics.click_day_link
  DROP CONSTRAINT click_day_link_pkey,
  ADD PRIMARY KEY (workspace_id, fdim, link_id, fvalue, day, bot) INCLUDE (clicks, visitors);
DROP INDEX analytics.click_day_link_day;
CREATE INDEX click_day_link_day ON analytics.click_day_link USING brin (day);
