import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { describe, expect, it } from "vitest";
import { apiRouteLabel } from "../../lib/api/metrics.ts";
import { ConfigError, parseConfig } from "../../lib/config/index.ts";
import { hasBearerToken } from "../../lib/http/operations.ts";
import { isTlsAskPath, operationsPathOf } from "../../lib/http/operations-paths.ts";
import { generateCode, isReservedAlias, RESERVED_PATHS } from "../../lib/links/short-code.ts";
import { metrics } from "../../lib/metrics/index.ts";
import { PrecountedCounter, PrecountedHistogram } from "../../lib/metrics/precounted.ts";
import { routeRequest, type RoutingContext } from "../../lib/redirects/routing.ts";

// The operations endpoints' paths and what they reserve, the precounted metrics' text (read back by
// a Prometheus text parser), the API's route labels and the metrics token check.

describe("operations paths", () => {
  it("names /healthz, /readyz and /metrics, with a trailing slash or a query, and nothing else", () => {
    expect(operationsPathOf("/healthz")).toBe("healthz");
    expect(operationsPathOf("/readyz?verbose=1")).toBe("readyz");
    expect(operationsPathOf("/metrics/")).toBe("metrics");
    for (const other of ["/", "/health", "/healthz/x", "/Healthz", "/metricsx", "//healthz", "healthz", undefined, "/abc", "*"])
      expect(operationsPathOf(other)).toBeNull();
  });

  it("are reserved aliases on every domain, so a link can never take them", () => {
    for (const p of ["healthz", "readyz", "metrics"]) {
      expect(RESERVED_PATHS.has(p)).toBe(true);
      expect(isReservedAlias(p)).toBe(true);
    }
    // "healthz" and "metrics" have the shape of a generated code (7 base62 characters)
    for (let i = 0; i < 2000; i++) expect(["healthz", "metrics"]).not.toContain(generateCode());
  });

  it("/tls/ask (Caddy's on-demand TLS question) is told apart, and tls is a reserved alias", () => {
    expect(isTlsAskPath("/tls/ask")).toBe(true);
    expect(isTlsAskPath("/tls/ask?domain=go.brand.example")).toBe(true);
    for (const other of ["/tls", "/tls/", "/tls/ask/", "/tls/asks", "/TLS/ask", "//tls/ask", "tls/ask", undefined, "/"])
      expect(isTlsAskPath(other)).toBe(false);
    expect(RESERVED_PATHS.has("tls")).toBe(true);
    expect(isReservedAlias("tls")).toBe(true);
  });

  it("are never link codes on a custom domain, where every other code-shaped path is one", () => {
    const ctx: RoutingContext = {
      shortDomain: "short.test",
      customDomainId: (h) => (h === "go.brand.example" ? 7 : undefined),
      isAppPath: (s) => RESERVED_PATHS.has(s),
    };
    for (const p of ["/healthz", "/readyz", "/metrics", "/metrics/"]) {
      expect(routeRequest("GET", "go.brand.example", p, ctx)).toEqual({ kind: "next" });
      expect(routeRequest("GET", "short.test", p, ctx)).toEqual({ kind: "next" });
    }
    expect(routeRequest("GET", "go.brand.example", "/healthy", ctx)).toEqual({ kind: "link", domainKey: 7, code: "healthy" });
  });
});

describe("precounted metrics", () => {
  it("a counter with a label writes every value, counted or not", () => {
    const c = new PrecountedCounter("t_requests_total", 'Requests "seen"\nby outcome', "outcome", ["a", "b", "c"] as const);
    c.inc("a");
    c.inc("c");
    c.inc("c");
    const [family] = parsePrometheusTextFormat(c.render());
    expect(family).toMatchObject({ name: "t_requests_total", type: "COUNTER" });
    expect(family.metrics).toEqual([
      { labels: { outcome: "a" }, value: "1" },
      { labels: { outcome: "b" }, value: "0" },
      { labels: { outcome: "c" }, value: "2" },
    ]);
  });

  it("a histogram writes cumulative buckets, sum and count", () => {
    const h = new PrecountedHistogram("t_seconds", "Time", [0.01, 0.001, 0.1]);
    for (const v of [0.0005, 0.001, 0.05, 5]) h.observe(v);
    const [family] = parsePrometheusTextFormat(h.render());
    expect(family).toMatchObject({ name: "t_seconds", type: "HISTOGRAM" });
    const [m] = family.metrics;
    expect(m.buckets).toEqual({ "0.001": "2", "0.01": "2", "0.1": "3", "+Inf": "4" });
    expect(m.count).toBe("4");
    expect(Number(m.sum)).toBeCloseTo(5.0515, 10);
  });

  it("the process's whole set parses, each family once", async () => {
    const text = await metrics().render();
    const families = parsePrometheusTextFormat(text);
    const names = families.map((f) => f.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of [
      "linkhop_redirects_total",
      "linkhop_redirect_duration_seconds",
      "linkhop_redirect_cache_hits_total",
      "linkhop_click_events_given_up_total",
      "linkhop_db_pool_connections",
      "process_cpu_seconds_total",
    ])
      expect(names).toContain(name);
  });

  it("is one set per process, however many module copies ask", () => {
    expect(metrics()).toBe(metrics());
  });
});

describe("API route labels", () => {
  it("name the route pattern, never a code or an id", () => {
    expect(apiRouteLabel("/api/v1/links")).toBe("/api/v1/links");
    expect(apiRouteLabel("/api/v1/links/abc123")).toBe("/api/v1/links/{code}");
    expect(apiRouteLabel("/api/v1/links/bulk")).toBe("/api/v1/links/bulk");
    expect(apiRouteLabel("/api/v1/links/export")).toBe("/api/v1/links/export");
    expect(apiRouteLabel("/api/v1/tags/12")).toBe("/api/v1/tags/{id}");
    expect(apiRouteLabel("/api/v1/analytics/export")).toBe("/api/v1/analytics/export");
    expect(apiRouteLabel("/api/v1/links/a/b")).toBe("other");
    expect(apiRouteLabel("/api/v1/nothing")).toBe("other");
  });
});

describe("metrics token", () => {
  const token = "0123456789abcdef0123";
  it("accepts exactly `Bearer <token>`", () => {
    expect(hasBearerToken(`Bearer ${token}`, token)).toBe(true);
    expect(hasBearerToken(`bearer ${token}`, token)).toBe(true);
    expect(hasBearerToken(undefined, token)).toBe(false);
    expect(hasBearerToken(token, token)).toBe(false);
    expect(hasBearerToken(`Bearer ${token}x`, token)).toBe(false);
    expect(hasBearerToken(`Basic ${token}`, token)).toBe(false);
  });
});

describe("configuration", () => {
  it("metrics are off and shutdowns do not drain unless configured", () => {
    const c = parseConfig({});
    expect([c.METRICS_PORT, c.METRICS_HOST, c.METRICS_TOKEN, c.SHUTDOWN_DRAIN_MS]).toEqual([undefined, "127.0.0.1", undefined, 0]);
    const set = parseConfig({ METRICS_PORT: "9464", METRICS_HOST: "0.0.0.0", METRICS_TOKEN: "x".repeat(16), SHUTDOWN_DRAIN_MS: "10000" });
    expect([set.METRICS_PORT, set.METRICS_HOST, set.METRICS_TOKEN, set.SHUTDOWN_DRAIN_MS]).toEqual([
      9464,
      "0.0.0.0",
      "x".repeat(16),
      10000,
    ]);
    expect(parseConfig({ METRICS_PORT: "", METRICS_TOKEN: "" })).toMatchObject({ METRICS_PORT: undefined, METRICS_TOKEN: undefined });
  });

  it("a bad value stops the start naming the variable", () => {
    for (const [name, value] of [
      ["METRICS_PORT", "70000"],
      ["METRICS_PORT", "metrics"],
      ["METRICS_TOKEN", "short"],
      ["SHUTDOWN_DRAIN_MS", "-1"],
    ]) {
      expect(() => parseConfig({ [name]: value })).toThrow(ConfigError);
      expect(() => parseConfig({ [name]: value })).toThrow(name);
    }
  });
});
