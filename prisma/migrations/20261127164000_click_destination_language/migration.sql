-- Two more dimensions of a click event (lib/analytics/store/dimensions.ts): the URL the visit was
-- sent to, before forwarding (groupBy=destinations), and the first Accept-Language primary subtag
-- (groupBy=languages). Both nullable: events recorded before have neither. Adding a nullable column
-- without a default is a catalog change only (no rewrite); on the partitioned parent it reaches
-- every partition.
ALTER TABLE analytics.click_event
  ADD COLUMN destination text,
  ADD COLUMN language    text;

-- The rollups gain rows for the two dimensions (click_day: destinations and languages, languages
-- also under each filter; click_day_link: both per link). They are derived data: emptied here, and
-- the background job builds every day again; until a day is built, reports read its raw events.
TRUNCATE analytics.click_day, analytics.click_day_link, analytics.click_day_done;
