import fs from "node:fs";
import { z } from "zod";
import { setShared, shared } from "../registry.ts";

// The environment, parsed once. A bad value stops the start with a message naming the variable.
const duration = z
  .string()
  .regex(/^\d+(ms|s|m|h|d)$/, "a duration such as 500ms, 30s, 5m, 2h or 3d")
  .transform(parseDuration);

export function parseDuration(text: string): number {
  const m = /^(\d+)(ms|s|m|h|d)$/.exec(text.trim());
  if (!m) throw new Error(`not a duration: ${text}`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as "ms"];
  return Number(m[1]) * unit;
}

const flag = z
  .string()
  .optional()
  .transform((v) => v === "1" || v === "true");

// An unset or empty variable is "not configured" (as for AUTH_GITHUB_ID: `VAR=` in an env file).
const unsetIfEmpty = (v: unknown) => (v === "" ? undefined : v);

// An OpenID Connect issuer: https without query or fragment (OpenID Connect Discovery 1.0 §2), so
// the code exchange and the claims are not readable on the way. Plain http only on loopback (a
// provider running next to the app, e.g. in tests).
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);
const oidcIssuer = z.preprocess(
  unsetIfEmpty,
  z
    .string()
    .refine((v) => {
      const url = URL.parse(v);
      if (!url || url.search || url.hash || url.username || url.password) return false;
      return url.protocol === "https:" || (url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname));
    }, "an https URL without query or fragment, e.g. https://login.example.com/realms/main (http only on loopback)")
    .optional(),
);
const OIDC_VARIABLES = ["OIDC_ISSUER", "OIDC_CLIENT_ID", "OIDC_CLIENT_SECRET"] as const;

const schema = z.object({
  DATABASE_URL: z.string().url().optional(),
  // default: http://localhost:<PORT> (http://localhost:3000 with the default port)
  APP_URL: z.string().url().optional(),
  SHORT_DOMAIN: z.string().min(1).optional(),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  AUTH_SECRET: z.string().min(16).optional(),
  INNGEST_EVENT_KEY: z.string().optional(),
  INNGEST_SIGNING_KEY: z.string().optional(),
  INNGEST_DEV: z.string().optional(),
  INNGEST_BASE_URL: z.string().url().optional(),
  SMTP_URL: z.string().optional(),
  MAIL_FROM: z.string().default("Linkhop <no-reply@localhost>"),
  DNS_SERVERS: z
    .string()
    .optional()
    .transform((v) =>
      v
        ? v
            .split(",")
            .map((s) => s.trim())
            .filter(Boolean)
        : [],
    ),
  WEBHOOK_RETRY_DELAYS: z
    .string()
    .default("1m,5m,30m,2h,6h,12h")
    .transform((v, ctx) => {
      try {
        const list = v.split(",").map((s) => parseDuration(s));
        if (list.length !== 6) throw new Error("six delays");
        return list;
      } catch {
        ctx.addIssue({ code: "custom", message: "six comma-separated durations, e.g. 1m,5m,30m,2h,6h,12h" });
        return z.NEVER;
      }
    }),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  WEBHOOK_DISABLE_AFTER: duration.default(3 * 86_400_000), // 3d
  WEBHOOK_ALLOW_PRIVATE: flag,
  // a testing aid: one port webhooks may use besides 443, with https and public addresses still
  // required (the guard's tests run their listener on a port of their own); leave it unset
  WEBHOOK_TEST_ALLOW_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().min(1).default(60),
  PLANS_FILE: z.string().optional(),
  // a testing aid read by lib/clock.ts; validated here so a bad value stops the start
  LINKHOP_CLOCK_START: z.iso.datetime({ offset: true }).optional(),
  GEO_COUNTRY_HEADER: z
    .string()
    .default("x-country")
    .transform((v) => v.toLowerCase()),
  DESTINATION_DENYLIST: z
    .string()
    .optional()
    .transform((v) =>
      v
        ? v
            .split(",")
            .map((s) => s.trim().toLowerCase())
            .filter(Boolean)
        : [],
    ),
  // a MaxMind-format city database (e.g. GeoLite2-City.mmdb) instead of the bundled country database
  GEOIP_DB: z
    .string()
    .optional()
    .refine((v) => !v || fs.existsSync(v), "no such file (a MaxMind-format .mmdb, e.g. GeoLite2-City.mmdb)"),
  LINKHOP_DATA_DIR: z.string().default(".data"),
  // database connections per process, by pool (lib/db/client.ts says why there are four)
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).default(10),
  REDIRECT_POOL_SIZE: z.coerce.number().int().min(1).default(6),
  ANALYTICS_POOL_SIZE: z.coerce.number().int().min(1).default(4),
  RATE_LIMIT_POOL_SIZE: z.coerce.number().int().min(1).default(4),
  // how often the click pipeline writes what it buffered (lib/clicks/pipeline.ts)
  CLICK_FLUSH_MS: z.coerce.number().int().min(50).default(1000),
  // the most the click journal (batches the database refused, kept under LINKHOP_DATA_DIR until it takes
  // them: lib/clicks/journal.ts) may hold on disk; beyond it new batches are given up with a log line
  CLICK_JOURNAL_MAX_MB: z.coerce.number().int().min(1).default(1024),
  // Prometheus metrics (lib/metrics): on a port of their own (unset: none) bound to METRICS_HOST,
  // and on the main port only for requests with `Authorization: Bearer <METRICS_TOKEN>`
  METRICS_PORT: z.preprocess(unsetIfEmpty, z.coerce.number().int().min(0).max(65535).optional()),
  METRICS_HOST: z.preprocess(unsetIfEmpty, z.string().min(1).default("127.0.0.1")),
  METRICS_TOKEN: z.preprocess(unsetIfEmpty, z.string().min(16, "at least 16 characters (e.g. openssl rand -hex 32)").optional()),
  // on SIGTERM, /readyz answers 503 at once and the process goes on serving this long before it
  // stops accepting connections, so a load balancer probing /readyz takes it out first (server.ts)
  SHUTDOWN_DRAIN_MS: z.coerce.number().int().min(0).max(600_000).default(0),
  // a CSV export (lib/analytics/reports/export.ts) holds an analytics connection while it streams: it is
  // ended after this long, however slowly the client reads, and only this many run at once per
  // process (default: half of ANALYTICS_POOL_SIZE, at least 1), so reports and click writes keep theirs
  ANALYTICS_EXPORT_TIMEOUT: duration.default(15 * 60_000), // 15m
  ANALYTICS_EXPORTS_MAX: z.coerce.number().int().min(1).optional(),
  // ClickHouse as the analytics store (lib/analytics/clickhouse, docs/clickhouse.md): unset, analytics
  // lives in PostgreSQL alone. Set, click events are copied there by the sink and reports and exports
  // are answered from it; PostgreSQL keeps click events for CLICKHOUSE_PG_KEEP (and until every reader
  // of the click feed has passed them).
  CLICKHOUSE_URL: z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .url()
      .refine(
        (v) => /^https?:$/.test(new URL(v).protocol),
        "an http(s) URL of ClickHouse's HTTP interface, e.g. http://user:password@clickhouse:8123/linkhop",
      )
      .optional(),
  ),
  CLICKHOUSE_PG_KEEP: duration.default(3 * 86_400_000), // 3d
  // behind one reverse proxy: the visitor's address is the last X-Forwarded-For entry
  TRUST_PROXY: flag,
  // a proxy in front obtains certificates for custom domains on demand (deploy/Caddyfile asks
  // /tls/ask): only what the Domains page tells a workspace about HTTPS changes
  TLS_ON_DEMAND: flag,
  // instance administrators by address (lib/instance), besides those granted by the admin CLI;
  // an address counts once its owner has verified it, so nobody becomes one by signing up first
  INSTANCE_ADMINS: z
    .string()
    .optional()
    .transform((v) => [...new Set((v ?? "").split(",").map((s) => s.trim().toLowerCase()))].filter(Boolean))
    .pipe(z.array(z.email("a comma-separated list of email addresses"))),
  // who may create an account until the Instance page sets it: anyone, only holders of a pending
  // invitation, or nobody (accounts then come from the admin CLI's user:create)
  SIGNUP_MODE: z.preprocess(unsetIfEmpty, z.enum(["open", "invite", "closed"]).default("open")),
  // sign-ups per client address and hour (lib/auth/throttle.ts)
  SIGNUP_LIMIT_PER_HOUR: z.coerce.number().int().min(1).default(30),
  // failed sign-ins per client address and 15 minutes, across every account (lib/auth/throttle.ts)
  SIGNIN_FAILURES_PER_CLIENT: z.coerce.number().int().min(1).default(50),
  AUTH_GITHUB_ID: z.string().optional(),
  AUTH_GITHUB_SECRET: z.string().optional(),
  AUTH_GOOGLE_ID: z.string().optional(),
  AUTH_GOOGLE_SECRET: z.string().optional(),
  // OpenID Connect sign-in (lib/auth/oidc.ts): all three or none
  OIDC_ISSUER: oidcIssuer,
  OIDC_CLIENT_ID: z.preprocess(unsetIfEmpty, z.string().optional()),
  OIDC_CLIENT_SECRET: z.preprocess(unsetIfEmpty, z.string().optional()),
  // the button's "Continue with <name>"
  OIDC_NAME: z.preprocess(unsetIfEmpty, z.string().trim().min(1).max(60).default("Single sign-on")),
  // lib/log: JSON lines, or one human line a record (default: json; pretty under `npm run dev` or on a terminal)
  LOG_FORMAT: z.preprocess(unsetIfEmpty, z.enum(["json", "pretty"]).optional()),
  LOG_LEVEL: z.preprocess(unsetIfEmpty, z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info")),
});

// Half an OpenID Connect configuration would start without the button, and nobody would know why.
const checkedSchema = schema.superRefine((c, ctx) => {
  const set = OIDC_VARIABLES.filter((name) => c[name] !== undefined);
  if (set.length === 0 || set.length === OIDC_VARIABLES.length) return;
  for (const name of OIDC_VARIABLES.filter((n) => c[n] === undefined)) {
    ctx.addIssue({ code: "custom", path: [name], message: `missing: OpenID Connect needs ${OIDC_VARIABLES.join(", ")} together` });
  }
});

export type Config = Omit<z.output<typeof schema>, "APP_URL" | "LOG_FORMAT"> & {
  APP_URL: string;
  LOG_FORMAT: "json" | "pretty";
  shortDomain: string;
  appHost: string;
  inngestEnabled: boolean;
  /** OpenID Connect sign-in, when OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET are set. */
  oidc: { issuer: string; clientId: string; clientSecret: string; name: string } | null;
};

export class ConfigError extends Error {}

/** `terminal`: stdout is a terminal, where the default log format is pretty (a person is reading). */
export function parseConfig(env: Record<string, string | undefined>, terminal = false): Config {
  const parsed = checkedSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  const c = parsed.data;
  const appUrl = (c.APP_URL ?? `http://localhost:${c.PORT || 3000}`).replace(/\/+$/, "");
  const appHost = new URL(appUrl).host;
  return {
    ...c,
    APP_URL: appUrl,
    // server.ts runs Next in development mode with LINKHOP_DEV=1 (`npm run dev`)
    LOG_FORMAT: c.LOG_FORMAT ?? (env.LINKHOP_DEV === "1" || terminal ? "pretty" : "json"),
    appHost,
    shortDomain: (c.SHORT_DOMAIN ?? appHost).toLowerCase(),
    inngestEnabled: Boolean(c.INNGEST_EVENT_KEY || c.INNGEST_DEV || c.INNGEST_BASE_URL),
    oidc:
      c.OIDC_ISSUER && c.OIDC_CLIENT_ID && c.OIDC_CLIENT_SECRET
        ? { issuer: c.OIDC_ISSUER, clientId: c.OIDC_CLIENT_ID, clientSecret: c.OIDC_CLIENT_SECRET, name: c.OIDC_NAME }
        : null,
  };
}

// Cached per process (lib/registry.ts); tests that change the environment call resetConfig().
export function config(): Config {
  return shared("config", () => parseConfig(process.env, process.stdout.isTTY === true));
}

export function resetConfig() {
  setShared("config", undefined);
}
