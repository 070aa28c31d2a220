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
    ["a reserved alias", one({ alias: "api" }), pro, { shape: "refused", guarded: false, destinations: "read" }],
    [
      "a reserved alias, webhooks in the plan",
      one({ alias: "login" }),
      business,
      { shape: "refused", guarded: false, destinations: "read" },
    ],
    ["a plan allowing no links", one(), plan("pro", { maxLinks: 0 }), { shape: "refused", guarded: false, destinations: "read" }],
    ["one link, a plan without webhooks", one(), pro, { shape: "one statement", guarded: false, destinations: "statement" }],
    ["... with an alias", one({ alias: "spring" }), pro, { shape: "one statement", guarded: false, destinations: "statement" }],
    ["... with a password", one({ password: "secret-1" }), pro, { shape: "one statement", guarded: false, destinations: "read" }],
    ["webhooks in the plan, no endpoint known", one(), business, { shape: "one statement", guarded: true, destinations: "statement" }],
    [
      "webhooks in the plan, an endpoint found",
      one({ endpoint: true }),
      business,
      { shape: "transaction", guarded: false, destinations: "statement" },
    ],
    [
      "... with a password",
      one({ endpoint: true, password: "secret-1" }),
      business,
      { shape: "transaction", guarded: false, destinations: "read" },
    ],
    [
      "webhooks allowed by feature but no endpoints in the plan",
      one({ endpoint: true }),
      plan("business", { webhookEndpoints: 0 }),
      { shape: "one statement", guarded: false, destinations: "statement" },
    ],
    ["many links", { links: "many" }, business, { shape: "bulk", guarded: false, destinations: "read" }],
    ["many links, no webhooks", { links: "many", alias: "api" }, pro, { shape: "bulk", guarded: false, destinations: "read" }],
  ];
  it.each(cases)("%s", (_, request, p, expected) => {
    expect(planCreate(request, p)).toEqual(expected);
  });

  it("never guards a statement on a plan without webhooks, nor leaves destinations to a statement before a hash", () => {
    for (const p of [pro, business, plan("free"), plan("team")])
      for (const request of [one(), one({ alias: "x-1" }), one({ password: "pw-12345" }), one({ endpoint: true }), one({ alias: "api" })]) {
        const planned = planCreate(request, p);
        if (planned.guarded) expect(p.webhookEndpoints).toBeGreaterThan(0);
        if (request.password) expect(planned.destinations).toBe("read");
      }
  });
});
