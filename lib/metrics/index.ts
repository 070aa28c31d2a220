import { collectDefaultMetrics, Counter, Histogram, Registry } from "prom-client";
import { shared } from "../registry.ts";
import { PrecountedCounter, PrecountedHistogram } from "./precounted.ts";
import { registerSourceGauges, type MetricSources } from "./sources.ts";

// The process's Prometheus metrics, one set per process: server.ts's module graph (the redirect
// path, the click pipeline, webhook attempts of the built-in scheduler) and Next's bundle (the
// /api/v1 route handlers) record into the same objects, kept in the process registry
// (lib/registry.ts). Services record; server.ts serves them (lib/http/operations.ts): on METRICS_PORT,
// or on the main port with METRICS_TOKEN. Names, units and labels: docs/operations.md "Running in production".

/** How a short-link request was answered (lib/redirects/http.ts). */
export const REDIRECT_OUTCOMES = [
  "redirect", // to the destination or a targeting URL (bots included: they are redirected too)
  "not_found", // no such link, a host without short links, a path that cannot be a code
  "inactive",
  "not_started",
  "expired",
  "capped",
  "denylisted",
  "password", // the password form, a wrong password, too many guesses
  "preview", // a link-preview fetcher given the link's preview card (lib/redirects/preview.ts)
  "bad_request", // a method short links do not answer, a form too large
  "domain_page", // a custom domain's app-link file, or its root or not-found redirect (lib/redirects/domain-pages.ts)
  "error", // the database failed (503) or a bug (500)
] as const;
export type RedirectOutcome = (typeof REDIRECT_OUTCOMES)[number];

/** Why click events were given up (lib/clicks/pipeline.ts). */
export const GIVEN_UP_REASONS = ["failed_writes", "shutdown", "overflow", "journal_full"] as const;

// a warm redirect is answered in tens of microseconds, a cache miss in about a millisecond
const REDIRECT_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
const API_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const WEBHOOK_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const FLUSH_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

function createMetrics() {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry });
  let sources: MetricSources | undefined;
  registerSourceGauges(registry, () => sources);

  const redirects = {
    outcomes: new PrecountedCounter("linkhop_redirects_total", "Short-link requests answered, by outcome", "outcome", REDIRECT_OUTCOMES),
    duration: new PrecountedHistogram(
      "linkhop_redirect_duration_seconds",
      "Time from a short-link request to its answer",
      REDIRECT_BUCKETS,
    ),
    cacheHits: new PrecountedCounter("linkhop_redirect_cache_hits_total", "Short-link lookups answered by the redirect cache"),
    cacheMisses: new PrecountedCounter("linkhop_redirect_cache_misses_total", "Short-link lookups that read the database"),
  };
  const clicks = {
    flushDuration: new Histogram({
      name: "linkhop_click_flush_duration_seconds",
      help: "Time of one click pipeline flush that had something to write (result: ok, or error when it was kept for the next)",
      labelNames: ["result"],
      buckets: FLUSH_BUCKETS,
      registers,
    }),
    givenUp: new Counter({
      name: "linkhop_click_events_given_up_total",
      help: "Click events the click pipeline gave up on (failed_writes: the database refused them too often; shutdown; overflow: too many waiting; journal_full: the click journal had no room)",
      labelNames: ["reason"],
      registers,
    }),
  };
  for (const reason of GIVEN_UP_REASONS) clicks.givenUp.inc({ reason }, 0);
  const api = {
    requests: new Counter({
      name: "linkhop_api_requests_total",
      help: "Requests to /api/v1, by method, route and status",
      labelNames: ["method", "route", "status"],
      registers,
    }),
    duration: new Histogram({
      name: "linkhop_api_request_duration_seconds",
      help: "Time from an /api/v1 request to its answer's headers (a streamed export goes on after)",
      labelNames: ["method", "route"],
      buckets: API_BUCKETS,
      registers,
    }),
    rateLimited: new Counter({
      name: "linkhop_api_rate_limited_total",
      help: "/api/v1 requests refused by the key's rate limit (429)",
      registers,
    }),
  };
  const webhooks = {
    attempts: new Counter({
      name: "linkhop_webhook_attempts_total",
      help: "Webhook delivery attempts made, by outcome (delivered, http_status, timeout, ...)",
      labelNames: ["outcome"],
      registers,
    }),
    duration: new Histogram({
      name: "linkhop_webhook_attempt_duration_seconds",
      help: "Time of one webhook delivery attempt (address check and request)",
      buckets: WEBHOOK_BUCKETS,
      registers,
    }),
  };
  const auth = {
    passwordHashes: new Counter({
      name: "linkhop_password_hashes_total",
      help: "Password hashes (scrypt) computed, by lane: interactive (sign-in, sign-up, a link's visitor) or bulk (link passwords set by API or app)",
      labelNames: ["lane"],
      registers,
    }),
  };
  for (const lane of ["interactive", "bulk"]) auth.passwordHashes.inc({ lane }, 0);
  const precounted = [redirects.outcomes, redirects.duration, redirects.cacheHits, redirects.cacheMisses];

  return {
    redirects,
    clicks,
    api,
    webhooks,
    auth,
    /** What the scrape-time gauges read (lib/runtime.ts); undefined when the runtime closes. */
    setSources(next: MetricSources | undefined) {
      sources = next;
    },
    contentType: registry.contentType,
    /** Every metric in the Prometheus text format. */
    async render(): Promise<string> {
      const text = await registry.metrics();
      return text + "\n" + precounted.map((m) => m.render()).join("\n");
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

/** The process's metrics, made on first use. */
export function metrics(): Metrics {
  return shared("metrics", createMetrics);
}

export type { MetricSources };
