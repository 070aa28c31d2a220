import { DIRECT, UNKNOWN_LANGUAGE, type BotMode, type ClickFilters, type GroupRow, type TopGroup } from "../model.ts";
import type { Params } from "./sql-params.ts";

// Every dimension a report groups or filters by, and how the store reads each: the one table to
// extend with a dimension (with its event column, a migration, and the model's TopGroup and
// ClickFilters). Three kinds:
// - DIMENSIONS: values of the event itself (country, browser, ...), kept in the daily rollups;
// - LINK_GROUPS: groups by what the clicked links are now (their tags, a UTM value of their URL);
// - LINK_SETS: filters that select links (one link, a folder, tags).
// Every derived list keeps the order of its table: the statements' text depends on it.

type FilterSpec = {
  /** the event column compared */
  column: string;
  /** compared without case (lower() on both sides); the rollups keep the value lower-cased */
  caseless?: boolean;
  /** the value as the column keeps it (text filters) */
  normalize?: (v: string) => string;
  /** the value that selects the events without one (the column is null; '' in the rollups) */
  none?: string;
  /** the daily rollups keep the clicks under each value of this filter (click_day fdim, click_day_link) */
  rollup: boolean;
};

type DimensionSpec = {
  /** the top-N group of its values */
  group: TopGroup;
  /** the event columns a raw top-N groups by */
  columns: readonly string[];
  /** the value the daily rollups keep (text, '' for none) */
  value: string;
  /** kept in pairs with the other pair dimensions (click_day: its values among the clicks with a value of the other) */
  pair: boolean;
  filter?: FilterSpec;
  /** kept per link (click_day_link) though not a rollup filter: the value there (SQL; a null is not kept) */
  perLink?: string;
  /** a rollup value as the group's key (default: the value, null for '') */
  decode?: (value: string) => GroupRow["key"];
};

type EventDim = "country" | "city" | "referrer" | "device" | "browser" | "os" | "qr" | "link" | "destination" | "language";

// a city with the country it is in (a city name alone is ambiguous)
const CITY = `coalesce(city, '') || E'\\t' || coalesce(country, '')`;

/** In the rollups' layout order (the build statements list the dimensions in it). */
export const DIMENSIONS = {
  country: {
    group: "countries",
    columns: ["country"],
    value: `coalesce(country, '')`,
    pair: true,
    filter: { column: "country", normalize: (v) => v.toUpperCase(), rollup: true },
  },
  city: {
    group: "cities",
    columns: ["city", "country"],
    value: CITY,
    pair: true,
    // a city filter ignores the country, which the rollups' value has
    filter: { column: "city", caseless: true, rollup: false },
    // only clicks with a city: a link's clicks without one are its country's rows less its city rows
    perLink: `case when city is not null then ${CITY} end`,
    decode: (v) => {
      const [city, country] = v.split("\t");
      return [city || null, country || null];
    },
  },
  referrer: {
    group: "referrers",
    columns: ["referrer_host"],
    value: `coalesce(referrer_host, '')`,
    pair: true,
    filter: { column: "referrer_host", normalize: (v) => v.toLowerCase(), none: DIRECT, rollup: true },
  },
  device: { group: "devices", columns: ["device"], value: `device`, pair: true, filter: { column: "device", rollup: true } },
  browser: {
    group: "browsers",
    columns: ["browser"],
    value: `coalesce(browser, '')`,
    pair: true,
    filter: { column: "browser", caseless: true, rollup: true },
  },
  os: { group: "os", columns: ["os"], value: `coalesce(os, '')`, pair: true, filter: { column: "os", caseless: true, rollup: true } },
  qr: {
    group: "qr",
    columns: ["qr"],
    value: `qr::text`,
    pair: true,
    filter: { column: "qr", rollup: true },
    decode: (v) => [v === "true"],
  },
  // filtered through LINK_SETS.linkId
  link: { group: "links", columns: ["link_id"], value: `link_id::text`, pair: false, decode: (v) => [Number(v)] },
  // Destinations are long URLs, many per workspace (every link's, its variants' and rules'): the
  // day rows keep them unfiltered only, and per link (a link, folder or tag filter); under a
  // dimension filter they have rows of their own, keyed by a hash of the URL
  // (store/destination-rollup.ts). Languages are few: kept
  // under every filter, like the pair dimensions. Null (not recorded) is kept as ''. As filters
  // both are answered by the raw events (like a city): the rollups keep no rows under their values.
  destination: {
    group: "destinations",
    columns: ["destination"],
    value: `coalesce(destination, '')`,
    pair: false,
    perLink: `coalesce(destination, '')`,
    filter: { column: "destination", rollup: false },
  },
  language: {
    group: "languages",
    columns: ["language"],
    value: `coalesce(language, '')`,
    pair: true,
    perLink: `coalesce(language, '')`,
    filter: { column: "language", normalize: (v) => v.toLowerCase(), none: UNKNOWN_LANGUAGE, rollup: false },
  },
} as const satisfies Record<EventDim, DimensionSpec>;

/** The value of a UTM parameter in a link's current URL (query part only), still percent-encoded. */
export const utmColumn = (name: string) => `substring(split_part(l.url, '#', 1) from '[?&]${name}=([^&]*)')`;
const linkNow = (alias: string) => `left join "Link" l on l.id = ${alias}.link_id`;

/**
 * Groups by what the links are now: a click on a link with two tags counts for both; a deleted
 * link's clicks have no tag and no UTM value. `join` joins per-link figures (`alias`.link_id) to
 * what `columns` read. Visitors are each link's unique visitors, summed.
 */
export const LINK_GROUPS = {
  tags: {
    columns: ["t.name", "t.color"],
    join: (alias: string) => `join "LinkTag" lt on lt."linkId" = ${alias}.link_id join "Tag" t on t.id = lt."tagId"`,
  },
  utm_source: { columns: [utmColumn("utm_source")], join: linkNow },
  utm_medium: { columns: [utmColumn("utm_medium")], join: linkNow },
  utm_campaign: { columns: [utmColumn("utm_campaign")], join: linkNow },
} as const satisfies { [G in TopGroup]?: { columns: readonly string[]; join: (alias: string) => string } };
export type LinkGroup = keyof typeof LINK_GROUPS;

/** The filters that select a set of links (by what the links are now). */
export type LinkSetKey = "linkId" | "folder" | "tags" | "utmSource" | "utmMedium" | "utmCampaign";
type LinkSetSpec<V> = {
  /** a query of the ids of its links */
  ids: (v: V, p: Params, workspace: string) => string;
  /** the raw events' condition */
  where: (v: V, p: Params, workspace: string) => string;
  /** visitors are counted per link (each link's unique visitors, summed), as the per-link rollups can */
  visitorsPerLink: boolean;
};
const likePrefix = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`) + "/%";
const folderIds = (v: string, p: Params, ws: string) =>
  `select id from "Link" where "workspaceId" = ${ws} and (folder = ${p.add(v)} or folder like ${p.add(likePrefix(v))})`;
const tagIds = (v: string[], p: Params, ws: string) =>
  `select lt."linkId" from "LinkTag" lt join "Tag" t on t.id = lt."tagId" where t."workspaceId" = ${ws} and t."nameKey" = any(${p.add(v)}::text[])`;
/**
 * The spellings of a decoded UTM value as a URL may carry it: as typed, percent-encoded, and with
 * "+" for spaces (the UTM groups merge these into one decoded row, reports/service.ts mergeDecoded).
 */
export function utmSpellings(v: string): string[] {
  const encoded = encodeURIComponent(v);
  return [...new Set([v, encoded, encoded.replace(/%20/g, "+"), v.replace(/ /g, "+")])];
}
const utmIds = (name: string) => (v: string, p: Params, ws: string) =>
  `select l.id from "Link" l where l."workspaceId" = ${ws} and ${utmColumn(name)} = any(${p.add(utmSpellings(v))}::text[])`;

export const LINK_SETS: { [K in LinkSetKey]: LinkSetSpec<NonNullable<ClickFilters[K]>> } = {
  linkId: {
    ids: (v, p, ws) => `select id from "Link" where id = ${p.add(v)} and "workspaceId" = ${ws}`,
    where: (v, p) => `link_id = ${p.add(v)}`,
    visitorsPerLink: false,
  },
  folder: { ids: folderIds, where: (v, p, ws) => `link_id in (${folderIds(v, p, ws)})`, visitorsPerLink: true },
  tags: { ids: tagIds, where: (v, p, ws) => `link_id in (${tagIds(v, p, ws)})`, visitorsPerLink: true },
  utmSource: { ids: utmIds("utm_source"), where: (v, p, ws) => `link_id in (${utmIds("utm_source")(v, p, ws)})`, visitorsPerLink: true },
  utmMedium: { ids: utmIds("utm_medium"), where: (v, p, ws) => `link_id in (${utmIds("utm_medium")(v, p, ws)})`, visitorsPerLink: true },
  utmCampaign: {
    ids: utmIds("utm_campaign"),
    where: (v, p, ws) => `link_id in (${utmIds("utm_campaign")(v, p, ws)})`,
    visitorsPerLink: true,
  },
};

/** The filters in a WHERE clause in this order (the statements' text and parameter numbers as they always were). */
export const WHERE_ORDER = [
  "linkId",
  "folder",
  "tags",
  "country",
  "city",
  "device",
  "browser",
  "os",
  "referrer",
  "qr",
  "utmSource",
  "utmMedium",
  "utmCampaign",
  "destination",
  "language",
  "bots",
] as const;
type MissingFilter = Exclude<keyof ClickFilters, (typeof WHERE_ORDER)[number]>;
type MissingGroup = Exclude<TopGroup, (typeof DIMENSIONS)[EventDim]["group"] | LinkGroup>;
// the compiler names a filter or group that no table above answers
const complete: [MissingFilter | MissingGroup] extends [never] ? true : MissingFilter | MissingGroup = true;
void complete;

// ---- derived: what the rollups keep ----

// one entry as its spec (the table's own type keeps each entry's literal values)
const spec = (d: EventDim): DimensionSpec => DIMENSIONS[d];
const filterSpec = (d: string) => (DIMENSIONS as Partial<Record<string, DimensionSpec>>)[d]?.filter;

export type RollupDim = "total" | EventDim;
/** The rollups' dimensions besides the total, in layout order. */
export const ROLLUP_DIMS = Object.keys(DIMENSIONS) as EventDim[];
export const PAIR_DIMS = ROLLUP_DIMS.filter((d) => DIMENSIONS[d].pair);
/** The dimensions a report may be filtered by and still read the rollups. */
export type FilterDim = { [D in EventDim]: (typeof DIMENSIONS)[D] extends { filter: { rollup: true } } ? D : never }[EventDim];
export const FILTER_DIMS = ROLLUP_DIMS.filter((d): d is FilterDim => filterSpec(d)?.rollup === true);
/** Filters that ignore case: the rollups keep their value lower-cased. */
export const CASELESS_FILTERS = FILTER_DIMS.filter((d) => filterSpec(d)?.caseless === true);
/** The dimensions of the per-link rows: the filter dimensions, then those kept per link besides. */
export type LinkDim = FilterDim | { [D in EventDim]: (typeof DIMENSIONS)[D] extends { perLink: string } ? D : never }[EventDim];
export const LINK_DIMS: LinkDim[] = [...FILTER_DIMS, ...ROLLUP_DIMS.filter((d): d is LinkDim => "perLink" in DIMENSIONS[d])];

export const dimValueSql = (d: EventDim) => DIMENSIONS[d].value;
/** A filter dimension's value as the rollups keep it for filtering (`fvalue`). */
export const filterValueSql = (d: FilterDim) => (CASELESS_FILTERS.includes(d) ? `lower(${dimValueSql(d)})` : dimValueSql(d));
/** A dimension's value in the per-link rows. */
export const linkValueSql = (d: LinkDim) => spec(d).perLink ?? filterValueSql(d as FilterDim);

// ---- groups ----

/** The event dimension a top-N group reads (undefined: a link group). */
export const GROUP_DIM = Object.fromEntries(ROLLUP_DIMS.map((d) => [DIMENSIONS[d].group, d])) as Partial<Record<TopGroup, EventDim>>;
export const isLinkGroup = (g: TopGroup): g is LinkGroup => g in LINK_GROUPS;

/** The columns a raw top-N groups by. */
export const groupColumns = (g: TopGroup): readonly string[] =>
  isLinkGroup(g) ? LINK_GROUPS[g].columns : DIMENSIONS[GROUP_DIM[g]!].columns;

/** A rollup value ('' for none) as the group's key. */
export function decodeValue(g: TopGroup, value: string): GroupRow["key"] {
  const decode = spec(GROUP_DIM[g]!).decode;
  return decode ? decode(value) : [value || null];
}

// ---- filters ----

/** A filter on one dimension, with the value as the rollups keep it. */
export type DimFilter = { dim: FilterDim; value: string };
/** A link, folder or tag filter, as the query has it. */
export type LinkSetFilter = { [K in LinkSetKey]: { links: K; value: NonNullable<ClickFilters[K]> } }[LinkSetKey];
/** The one filter a report read from the rollups may have (null: none). */
export type RollupFilter = DimFilter | LinkSetFilter | null;

const isLinkSetKey = (k: keyof ClickFilters): k is LinkSetKey => k in LINK_SETS;
const botsWhere = (v: BotMode) => (v === "exclude" ? "not bot" : v === "only" ? "bot" : null);

/** The raw events' condition for one filter's value (null: none). */
export function filterWhere(key: keyof ClickFilters, value: unknown, p: Params, workspace: string): string | null {
  if (key === "bots") return botsWhere(value as BotMode);
  if (isLinkSetKey(key)) return (LINK_SETS[key].where as (v: unknown, p: Params, ws: string) => string)(value, p, workspace);
  const f = filterSpec(key)!;
  if (f.none !== undefined && value === f.none) return `${f.column} is null`;
  if (f.caseless) return `lower(${f.column}) = lower(${p.add(value)})`;
  return `${f.column} = ${p.add(f.normalize ? f.normalize(value as string) : value)}`;
}

/** One filter as the rollups keep it; undefined when they cannot answer it (a city, the bot mode is apart). */
export function rollupFilterOf(key: Exclude<keyof ClickFilters, "bots">, value: unknown): NonNullable<RollupFilter> | undefined {
  if (isLinkSetKey(key)) return { links: key, value } as LinkSetFilter;
  const f = filterSpec(key);
  if (!f?.rollup) return undefined;
  const kept =
    f.none !== undefined && value === f.none
      ? ""
      : f.caseless
        ? String(value).toLowerCase()
        : String(f.normalize ? f.normalize(value as string) : value);
  return { dim: key as FilterDim, value: kept };
}

/** Whether the query's visitors are counted per link (a folder or tag filter). */
export const visitorsPerLink = (f: ClickFilters) =>
  (Object.keys(LINK_SETS) as LinkSetKey[]).some((k) => LINK_SETS[k].visitorsPerLink && present(f[k]));

/** A filter value that filters (an empty list does not). */
export const present = (v: unknown) => v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0);
