// What analytics' three parts share: the stored click event (ingest/ makes it), the questions a
// report asks and their answers (reports/ asks them), and the click store between the two (store/
// answers them). Types and constants only: no SQL, no I/O.

export const DAY_MS = 86_400_000;

/** A UTC day number (days since 1970-01-01): visitor keys, rollups and partitions count in these. */
export function utcDay(ms: number): number {
  return Math.floor(ms / DAY_MS);
}

export const TARGET_KINDS = ["destination", "ios", "android", "geo", "rule", "variant"] as const;
export type TargetKind = (typeof TARGET_KINDS)[number];

export const DEVICES = ["desktop", "mobile", "tablet", "other"] as const;
export type Device = (typeof DEVICES)[number];

/** One stored click event (see prisma/migrations/*_click_events). */
export type ClickEvent = {
  at: number; // unix ms
  workspaceId: number;
  linkId: number;
  domain: string;
  target: TargetKind;
  country: string | null;
  city: string | null;
  referrerHost: string | null;
  referrerUrl: string | null;
  device: string;
  browser: string | null;
  os: string | null;
  bot: boolean;
  qr: boolean;
  /** signed 64-bit visitor key in decimal */
  visitor: string;
  /**
   * the URL the visit was sent to, before forwarding (groupBy=destinations). The producer fills it
   * (the redirect always does); absent or null is stored as null and reported as destination null
   * (events recorded before the column existed)
   */
  destination?: string | null;
  /** the first Accept-Language primary subtag, lower case (groupBy=languages); null: none given */
  language?: string | null;
};

export const TOP_GROUPS = [
  "countries",
  "cities",
  "referrers",
  "devices",
  "browsers",
  "os",
  "links",
  "qr",
  "tags",
  "utm_source",
  "utm_medium",
  "utm_campaign",
  "destinations",
  "languages",
] as const;
export type TopGroup = (typeof TOP_GROUPS)[number];
export const BOT_MODES = ["exclude", "include", "only"] as const;
export type BotMode = (typeof BOT_MODES)[number];
/** "(direct)" in a referrer filter selects the visits that came without a referrer */
export const DIRECT = "(direct)";
/** groupBy=languages: the row of the visits without an Accept-Language (stored as null) */
export const UNKNOWN_LANGUAGE = "unknown";

const PRIMARY_SUBTAG = /^[a-z]{2,8}$/;
/**
 * A language as the store keeps it: its primary subtag (2 to 8 letters, lower case: "en-US" is
 * "en"), else null. The header is the visitor's to write: anything else would be a value of its
 * own in every report and rollup.
 */
export function storedLanguage(v: string | null | undefined): string | null {
  if (!v) return null;
  const primary = v.split(/[-_]/, 1)[0].toLowerCase();
  return PRIMARY_SUBTAG.test(primary) ? primary : null;
}

export type ClickFilters = {
  /** one link (already resolved to its id and checked to belong to the workspace) */
  linkId?: number;
  /** a folder path and its subfolders */
  folder?: string;
  /** tag keys (lower-cased names): links with any of these tags (their tags now, not when clicked) */
  tags?: string[];
  country?: string;
  city?: string;
  device?: string;
  browser?: string;
  os?: string;
  referrer?: string;
  qr?: boolean;
  /** links whose current URL carries this utm_source / utm_medium / utm_campaign value (decoded) */
  utmSource?: string;
  utmMedium?: string;
  utmCampaign?: string;
  /** the URL the visit was sent to, before forwarding (exact) */
  destination?: string;
  /** a language primary subtag (lower case); UNKNOWN_LANGUAGE selects the visits without one */
  language?: string;
  bots: BotMode;
};

export type ClickQuery = {
  workspaceId: number;
  /** inclusive start and exclusive end */
  start: Date;
  end: Date;
  filters: ClickFilters;
};

export type Totals = { clicks: number; visitors: number };
export type Bucket = { start: Date; clicks: number; visitors: number };
export type GroupRow = Totals & { key: (string | number | boolean | null)[] };

/** A raw event as the export reads it (everything but the visitor key). */
export type ExportRow = {
  at: Date;
  link_id: number;
  domain: string;
  target: string;
  country: string | null;
  city: string | null;
  referrer_host: string | null;
  referrer_url: string | null;
  device: string;
  browser: string | null;
  os: string | null;
  bot: boolean;
  qr: boolean;
  destination: string | null;
  language: string | null;
};

/** A report's question to the store: its shape decides which table answers (store/plan.ts). */
export type StoreQuery =
  | { kind: "count"; query: ClickQuery }
  | { kind: "timeseries"; query: ClickQuery; unit: "hour" | "day"; timezone: string }
  | { kind: "top"; query: ClickQuery; group: TopGroup; limit: number };

export type StoreAnswer<K extends StoreQuery["kind"]> = K extends "count" ? Totals : K extends "timeseries" ? Bucket[] : GroupRow[];

/** Where the daily visitor salts are kept (ingest/visitor.ts). */
export interface SaltKeeper {
  /** The day's salt: `candidate` when this call stores it, else the one stored first. */
  visitorSalt(day: number, candidate: Buffer): Promise<Buffer>;
  /** Forgets the salts of the days before `keepFromDay`. */
  pruneVisitorSalts(keepFromDay: number): Promise<void>;
}

/**
 * The click store: the one place that knows where click events live (store/click-store.ts: a
 * PostgreSQL table partitioned by month). An install that outgrows it can add another
 * implementation (a column store such as ClickHouse) without touching the redirect, the API or the page.
 */
export interface ClickStore extends SaltKeeper {
  /** Stores a batch; throws when it could not (the caller keeps the batch for a retry). */
  record(batch: ClickEvent[]): Promise<void>;
  query<Q extends StoreQuery>(q: Q): Promise<StoreAnswer<Q["kind"]>>;
  /** The raw events of a query, oldest first, a page at a time. */
  events(q: ClickQuery): AsyncGenerator<ExportRow[]>;
  /**
   * A reader for the reports of one page over `span` (every report's range inside it): what they
   * all read alike is read once (store/plan.ts pagePlanner). A store without it answers each alone.
   */
  page?(span: { start: Date; end: Date }): ReportReader;
}

/** What answers reports: a click store, or its reader for one page. */
export type ReportReader = Pick<ClickStore, "query"> & {
  /** Several reports at once (sharing statements where they can): the answers in their order. */
  queryAll?<Q extends StoreQuery>(qs: Q[]): Promise<StoreAnswer<Q["kind"]>[]>;
};
