import { describe, expect, it } from "vitest";
import { planCreate, type CreatePlan, type CreateRequest } from "../../lib/links/create-plan.ts";
import { DEFAULT_PLANS, type Plan } from "../../lib/plans/index.ts";

// create-plan.ts: which statements carry out a create, for every row of its table.

const plan = (id: string, more: Partial<Plan> = {}): Plan => ({ id, ...DEFAULT_PLANS[id], ...more });
const pro = plan("pro"); // no webhooks
const business = plan("business"); // webhooks
const one = (more: Partial<CreateRequest> = {}): CreateRequest => ({ links: 1, ...more });

describe("which statements carry out a create (planCreate)", () => {
  const cases: [string, CreateRequest, Plan, CreatePlan][] = [
    [
      "a reserved alias",
      one({ alias: "api" }),
      pro,
      { shape: "refused", event: false, destinations: "read", precheck: false, rate: "none" },
    ],
    [
      "a reserved alias, webhooks in the plan",
      one({ alias: "login" }),
      business,
      { shape: "refused", event: false, destinations: "read", precheck: false, rate: "none" },
    ],
    [
      "a plan allowing no links",
      one(),
      plan("pro", { maxLinks: 0 }),
      { shape: "refused", event: false, destinations: "read", precheck: false, rate: "none" },
    ],
    [
      "one link, a plan without webhooks",
      one(),
      pro,
      { shape: "one statement", event: false, destinations: "statement", precheck: false, rate: "none" },
    ],
    [
      "... with an alias",
      one({ alias: "spring" }),
      pro,
      { shape: "one statement", event: false, destinations: "statement", precheck: false, rate: "none" },
    ],
    [
      "... with a password",
      one({ password: "secret-1" }),
      pro,
      { shape: "one statement", event: false, destinations: "statement", precheck: true, rate: "none" },
    ],
    [
      "webhooks in the plan",
      one(),
      business,
      { shape: "one statement", event: true, destinations: "statement", precheck: false, rate: "none" },
    ],
    [
      "... with a password",
      one({ password: "secret-1" }),
      business,
      { shape: "one statement", event: true, destinations: "statement", precheck: true, rate: "none" },
    ],
    [
      "webhooks allowed by feature but no endpoints in the plan",
      one(),
      plan("business", { webhookEndpoints: 0 }),
      { shape: "one statement", event: false, destinations: "statement", precheck: false, rate: "none" },
    ],
    ["many links", { links: "many" }, business, { shape: "bulk", event: false, destinations: "read", precheck: false, rate: "none" }],
    [
      "many links, no webhooks",
      { links: "many", alias: "api" },
      pro,
      { shape: "bulk", event: false, destinations: "read", precheck: false, rate: "none" },
    ],
  ];
  it.each(cases)("%s", (_, request, p, expected) => {
    expect(planCreate(request, p)).toEqual(expected);
  });

  // an API request on a plan with a rate: where it is counted (the plan's second table)
  const rated: [string, CreateRequest, Plan, CreatePlan["rate"]][] = [
    ["one link: in its statement", one({ rated: true }), pro, "in statement"],
    ["... webhooks in the plan", one({ rated: true }), business, "in statement"],
    ["... with an alias", one({ rated: true, alias: "spring" }), pro, "in statement"],
    ["a password: in its pre-check, before the hash", one({ rated: true, password: "secret-1" }), business, "in statement"],
    ["a reserved alias: apart", one({ rated: true, alias: "api" }), pro, "apart"],
    ["a plan allowing no links: apart", one({ rated: true }), plan("pro", { maxLinks: 0 }), "apart"],
    ["many links: apart", { links: "many", rated: true }, business, "apart"],
    ["a plan without a rate: none", one({ rated: true }), plan("pro", { rateLimit: null }), "none"],
    ["not an API request (the app): none", one(), business, "none"],
  ];
  it.each(rated)("rate: %s", (_, request, p, expected) => {
    expect(planCreate(request, p).rate).toBe(expected);
    // the rate never changes the shape
    expect({ ...planCreate(request, p), rate: undefined }).toEqual({ ...planCreate({ ...request, rated: false }, p), rate: undefined });
  });

  it("writes an event only on a plan with webhooks, and pre-checks exactly the creates with a password to hash", () => {
    for (const p of [pro, business, plan("free"), plan("team")])
      for (const request of [
        one(),
        one({ alias: "x-1" }),
        one({ password: "pw-12345" }),
        one({ alias: "api" }),
        one({ alias: "api", password: "pw-1" }),
      ]) {
        const planned = planCreate(request, p);
        if (planned.event) expect(p.webhookEndpoints).toBeGreaterThan(0);
        expect(planned.precheck).toBe(!!request.password && planned.shape === "one statement");
      }
  });
});
