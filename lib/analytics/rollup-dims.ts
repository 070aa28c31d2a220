// The dimensions of the daily rollups (lib/analytics/rollup-sql.ts and rollup-link-sql.ts) and how
// each is kept: as text, '' for none.

/** Dimensions kept in pairs (each value of one among the clicks with a value of the other). */
export const PAIR_DIMS = ["country", "city", "referrer", "device", "browser", "os", "qr"] as const;
/** The pair dimensions a report may be filtered by and still read the rollups (a city filter ignores the country). */
export const FILTER_DIMS = ["country", "referrer", "device", "browser", "os", "qr"] as const;
export type FilterDim = (typeof FILTER_DIMS)[number];
export const ROLLUP_DIMS = ["total", ...PAIR_DIMS, "link"] as const;
export type RollupDim = (typeof ROLLUP_DIMS)[number];
// filters that ignore case compare with the lower-cased value
export const CASELESS_FILTERS: FilterDim[] = ["browser", "os"];

// each dimension's value as stored in the rollup (city: city, tab, country)
export const DIM_VALUE: Record<Exclude<RollupDim, "total">, string> = {
  country: `coalesce(country, '')`,
  city: `coalesce(city, '') || E'\\t' || coalesce(country, '')`,
  referrer: `coalesce(referrer_host, '')`,
  device: `device`,
  browser: `coalesce(browser, '')`,
  os: `coalesce(os, '')`,
  qr: `qr::text`,
  link: `link_id::text`,
};
/** A filter dimension's value as the rollups keep it for filtering (`fvalue`). */
export const filterValueSql = (d: FilterDim) => (CASELESS_FILTERS.includes(d) ? `lower(${DIM_VALUE[d]})` : DIM_VALUE[d]);

/**
 * The dimensions of the per-link rows (analytics.click_day_link) and each one's value there: the
 * filter dimensions as filters compare them, and the city (as DIM_VALUE keeps it) only for clicks
 * with a city; a link's clicks without one are its country's rows less its city rows.
 */
export const LINK_DIMS = [...FILTER_DIMS, "city"] as const;
export type LinkDim = (typeof LINK_DIMS)[number];
export const linkValueSql = (d: LinkDim) => (d === "city" ? `case when city is not null then ${DIM_VALUE.city} end` : filterValueSql(d));
