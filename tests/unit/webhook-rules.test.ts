import { describe, expect, it } from "vitest";
import { parseConfig } from "../../lib/config/index.ts";
import {
  disableReason,
  formatDuration,
  MAX_ATTEMPTS,
  newSigningSecret,
  outcomeOfStatus,
  retryDelayAfter,
  userAgent,
} from "../../lib/webhooks/rules.ts";

const DEFAULT_DELAYS = parseConfig({} as NodeJS.ProcessEnv).WEBHOOK_RETRY_DELAYS;

describe("webhook delivery rules", () => {
  it("retries follow 1m, 5m, 30m, 2h, 6h, 12h and stop after the 7th attempt", () => {
    expect(MAX_ATTEMPTS).toBe(7);
    const waits = [1, 2, 3, 4, 5, 6, 7].map((n) => retryDelayAfter(n, DEFAULT_DELAYS));
    expect(waits).toEqual([60_000, 300_000, 1_800_000, 7_200_000, 21_600_000, 43_200_000, null]);
    const total = (waits.slice(0, 6) as number[]).reduce((a, b) => a + b, 0);
    expect(total / 3_600_000).toBeCloseTo(20.6, 1); // "about 21 hours in total"
  });

  it("only 2xx is delivered; 3xx is a redirect (not followed); the rest are error statuses", () => {
    expect(outcomeOfStatus(200)).toBe("delivered");
    expect(outcomeOfStatus(204)).toBe("delivered");
    expect(outcomeOfStatus(299)).toBe("delivered");
    expect(outcomeOfStatus(301)).toBe("redirect");
    expect(outcomeOfStatus(307)).toBe("redirect");
    expect(outcomeOfStatus(199)).toBe("http_status");
    expect(outcomeOfStatus(404)).toBe("http_status");
    expect(outcomeOfStatus(500)).toBe("http_status");
  });

  it("disables after 20 events in a row failed every attempt", () => {
    const now = new Date();
    expect(disableReason({ consecutiveFailures: 19, failingSince: now }, now, 3 * 86_400_000)).toBeNull();
    expect(disableReason({ consecutiveFailures: 20, failingSince: now }, now, 3 * 86_400_000)).toMatch(/20 events in a row/);
  });

  it("disables when failing with nothing delivered for three days", () => {
    const now = new Date("2026-11-22T12:00:00Z");
    const threeDays = 3 * 86_400_000;
    expect(disableReason({ consecutiveFailures: 1, failingSince: new Date(now.getTime() - threeDays + 1) }, now, threeDays)).toBeNull();
    expect(disableReason({ consecutiveFailures: 1, failingSince: new Date(now.getTime() - threeDays) }, now, threeDays)).toMatch(/3 days/);
    expect(disableReason({ consecutiveFailures: 0, failingSince: null }, now, threeDays)).toBeNull();
  });

  it("formats durations for messages", () => {
    expect(formatDuration(3 * 86_400_000)).toBe("3 days");
    expect(formatDuration(3_600_000)).toBe("1 hour");
    expect(formatDuration(1500)).toBe("1500 ms");
  });

  it("signing secrets are whsec_ + 48 base62 characters, all different", () => {
    const a = newSigningSecret();
    expect(a).toMatch(/^whsec_[0-9A-Za-z]{48}$/);
    expect(new Set(Array.from({ length: 100 }, newSigningSecret)).size).toBe(100);
  });

  it("the User-Agent names the product, version and help page", () => {
    expect(userAgent("https://links.example.com")).toMatch(
      /^Linkhop-Webhooks\/\d+\.\d+\.\d+ \(\+https:\/\/links\.example\.com\/docs\/webhooks\)$/,
    );
  });
});
