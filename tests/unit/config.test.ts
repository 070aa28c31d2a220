import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig, parseDuration } from "../../lib/config/index.ts";

describe("configuration", () => {
  it("defaults follow the contract", () => {
    const c = parseConfig({});
    expect(c.APP_URL).toBe("http://localhost:3000");
    expect(c.shortDomain).toBe("localhost:3000");
    expect(c.PORT).toBe(3000);
    expect(c.WEBHOOK_RETRY_DELAYS).toEqual([60_000, 300_000, 1_800_000, 7_200_000, 21_600_000, 43_200_000]);
    expect(c.WEBHOOK_TIMEOUT_MS).toBe(10_000);
    expect(c.WEBHOOK_DISABLE_AFTER).toBe(3 * 86_400_000);
    expect(c.RATE_LIMIT_WINDOW_SECONDS).toBe(60);
    expect(c.GEO_COUNTRY_HEADER).toBe("x-country");
    expect(c.inngestEnabled).toBe(false);
    expect(c.WEBHOOK_ALLOW_PRIVATE).toBe(false);
  });

  it("APP_URL follows PORT when unset; SHORT_DOMAIN follows APP_URL", () => {
    expect(parseConfig({ PORT: "4100" }).APP_URL).toBe("http://localhost:4100");
    expect(parseConfig({ PORT: "4100", APP_URL: "https://links.example.com/" }).APP_URL).toBe("https://links.example.com");
    expect(parseConfig({ APP_URL: "https://links.example.com" }).shortDomain).toBe("links.example.com");
    expect(parseConfig({ APP_URL: "https://links.example.com", SHORT_DOMAIN: "Go.Example" }).shortDomain).toBe("go.example");
  });

  it("a bad value names the variable", () => {
    expect(() => parseConfig({ WEBHOOK_RETRY_DELAYS: "1m,5m" })).toThrow(ConfigError);
    expect(() => parseConfig({ WEBHOOK_RETRY_DELAYS: "1m,5m" })).toThrow(/WEBHOOK_RETRY_DELAYS/);
    expect(() => parseConfig({ PORT: "http" })).toThrow(/PORT/);
    expect(() => parseConfig({ APP_URL: "not a url" })).toThrow(/APP_URL/);
    expect(() => parseConfig({ WEBHOOK_DISABLE_AFTER: "soon" })).toThrow(/WEBHOOK_DISABLE_AFTER/);
  });

  describe("OpenID Connect", () => {
    const oidc = { OIDC_ISSUER: "https://login.example.com/realms/main", OIDC_CLIENT_ID: "linkhop", OIDC_CLIENT_SECRET: "s3cret" };

    it("is off unless configured; all three variables configure it, OIDC_NAME names the button", () => {
      expect(parseConfig({}).oidc).toBeNull();
      expect(parseConfig({ OIDC_ISSUER: "", OIDC_CLIENT_ID: "", OIDC_CLIENT_SECRET: "" }).oidc).toBeNull();
      expect(parseConfig(oidc).oidc).toEqual({
        issuer: "https://login.example.com/realms/main",
        clientId: "linkhop",
        clientSecret: "s3cret",
        name: "Single sign-on",
      });
      expect(parseConfig({ ...oidc, OIDC_NAME: " Acme SSO " }).oidc?.name).toBe("Acme SSO");
    });

    it("some but not all of the three stop the start, naming each missing variable", () => {
      const { OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET } = oidc;
      expect(() => parseConfig({ OIDC_ISSUER })).toThrow(ConfigError);
      expect(() => parseConfig({ OIDC_ISSUER })).toThrow(/OIDC_CLIENT_ID: missing[\s\S]*OIDC_CLIENT_SECRET: missing/);
      expect(() => parseConfig({ OIDC_CLIENT_ID, OIDC_CLIENT_SECRET })).toThrow(/OIDC_ISSUER: missing/);
      expect(() => parseConfig({ OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET: "" })).toThrow(/OIDC_CLIENT_SECRET: missing/);
      expect(() => parseConfig({ OIDC_NAME: "Acme SSO", OIDC_CLIENT_SECRET })).toThrow(/OIDC_ISSUER[\s\S]*OIDC_CLIENT_ID/);
    });

    it("the issuer is an https URL (http only on loopback) without query or fragment", () => {
      for (const bad of [
        "login.example.com",
        "http://login.example.com",
        "https://login.example.com/?tenant=a",
        "https://login.example.com/#x",
      ]) {
        expect(() => parseConfig({ ...oidc, OIDC_ISSUER: bad }), bad).toThrow(/OIDC_ISSUER: an https URL/);
      }
      for (const ok of ["http://127.0.0.1:4010", "http://localhost:4010/oidc", "http://[::1]:4010", "https://login.example.com"]) {
        expect(parseConfig({ ...oidc, OIDC_ISSUER: ok }).oidc?.issuer, ok).toBe(ok);
      }
    });
  });

  it("pool sizes and the click flush interval: defaults, positive integers only, a bad value names the variable", () => {
    const c = parseConfig({});
    expect([c.DATABASE_POOL_SIZE, c.REDIRECT_POOL_SIZE, c.ANALYTICS_POOL_SIZE, c.RATE_LIMIT_POOL_SIZE, c.CLICK_FLUSH_MS]).toEqual([
      10, 6, 4, 4, 1000,
    ]);
    expect(parseConfig({ REDIRECT_POOL_SIZE: "12", CLICK_FLUSH_MS: "250" })).toMatchObject({ REDIRECT_POOL_SIZE: 12, CLICK_FLUSH_MS: 250 });
    for (const [name, value] of [
      ["DATABASE_POOL_SIZE", "0"],
      ["REDIRECT_POOL_SIZE", "abc"],
      ["ANALYTICS_POOL_SIZE", "-5"],
      ["RATE_LIMIT_POOL_SIZE", "2.5"],
      ["CLICK_FLUSH_MS", "10"],
    ]) {
      expect(() => parseConfig({ [name]: value }), name).toThrow(ConfigError);
      expect(() => parseConfig({ [name]: value }), name).toThrow(name);
    }
  });

  it("logs: json at info by default, pretty under `npm run dev` or on a terminal; LOG_FORMAT and LOG_LEVEL override; a bad value names the variable", () => {
    expect(parseConfig({})).toMatchObject({ LOG_FORMAT: "json", LOG_LEVEL: "info" });
    expect(parseConfig({ LINKHOP_DEV: "1" }).LOG_FORMAT).toBe("pretty");
    expect(parseConfig({}, true).LOG_FORMAT).toBe("pretty"); // stdout is a terminal
    expect(parseConfig({ LOG_FORMAT: "json" }, true).LOG_FORMAT).toBe("json");
    expect(parseConfig({ LINKHOP_DEV: "1", LOG_FORMAT: "json" }).LOG_FORMAT).toBe("json");
    expect(parseConfig({ LOG_FORMAT: "pretty", LOG_LEVEL: "debug" })).toMatchObject({ LOG_FORMAT: "pretty", LOG_LEVEL: "debug" });
    expect(parseConfig({ LOG_FORMAT: "", LOG_LEVEL: "" })).toMatchObject({ LOG_FORMAT: "json", LOG_LEVEL: "info" });
    for (const level of ["fatal", "error", "warn", "info", "debug", "trace", "silent"])
      expect(parseConfig({ LOG_LEVEL: level }).LOG_LEVEL).toBe(level);
    for (const [name, value] of [
      ["LOG_FORMAT", "text"],
      ["LOG_FORMAT", "JSON"],
      ["LOG_LEVEL", "verbose"],
      ["LOG_LEVEL", "30"],
    ]) {
      expect(() => parseConfig({ [name]: value }), `${name}=${value}`).toThrow(ConfigError);
      expect(() => parseConfig({ [name]: value }), `${name}=${value}`).toThrow(name);
    }
  });

  it("durations", () => {
    expect(parseDuration("500ms")).toBe(500);
    expect(parseDuration("2h")).toBe(7_200_000);
    expect(() => parseDuration("2 weeks")).toThrow();
  });
});
