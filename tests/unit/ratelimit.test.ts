import { describe, expect, it } from "vitest";
import { rateLimitHeaders } from "../../lib/ratelimit/index.ts";

// consumeRateBudget itself runs against PostgreSQL in tests/integration/api-sql.test.ts.
describe("rateLimitHeaders", () => {
  it("gives Limit and Remaining for a decision and nothing on a plan without a rate", () => {
    expect(rateLimitHeaders({ allowed: true, limit: 30, remaining: 29 })).toEqual({
      "X-RateLimit-Limit": "30",
      "X-RateLimit-Remaining": "29",
    });
    expect(rateLimitHeaders({ allowed: false, limit: 30, remaining: 0 })).toEqual({
      "X-RateLimit-Limit": "30",
      "X-RateLimit-Remaining": "0",
    });
    expect(rateLimitHeaders(null)).toEqual({});
  });
});
