import fs from "node:fs";
import { setShared, shared } from "../registry.ts";
import { z } from "zod";

// The plan table: one place in code, replaceable as a whole by PLANS_FILE.
export const FEATURES = [
  "ApiAccess",
  "CustomAliases",
  "LinkExpiry",
  "LinkPasswords",
  "CustomDomains",
  "BulkLinks",
  "Webhooks",
  /** an owner can require a second factor from every member (lib/workspaces/second-factor.ts) */
  "RequireSecondFactor",
  /** rules, forwardPath (lib/links/routing-schema.ts) */
  "RedirectRules",
  /** preview cards served to link-preview fetchers */
  "LinkPreviews",
  /** variants: A/B splits */
  "ABTesting",
] as const;
export type Feature = (typeof FEATURES)[number];

const planSchema = z.object({
  name: z.string().min(1),
  rateLimit: z.number().int().positive().nullable(),
  liveKeys: z.number().int().min(0),
  maxLinks: z.number().int().min(0),
  webhookEndpoints: z.number().int().min(0),
  features: z.array(z.enum(FEATURES)),
  /** how long click events are answered and kept; optional in PLANS_FILE (see analyticsRetentionDays) */
  analyticsRetentionDays: z.number().int().min(1).max(36_500).optional(),
  /** webhook deliveries per second to each endpoint; optional in PLANS_FILE (see webhookRatePerSecond) */
  webhookRatePerSecond: z.number().int().min(1).max(10_000).optional(),
});
export type Plan = z.infer<typeof planSchema> & { id: string };

const fileSchema = z.object({ plans: z.record(z.string().regex(/^[a-z0-9_-]+$/), planSchema) });

const pro: Feature[] = ["ApiAccess", "CustomAliases", "LinkExpiry", "LinkPasswords", "CustomDomains", "RedirectRules", "LinkPreviews"];
export const DEFAULT_PLANS: Record<string, Omit<Plan, "id">> = {
  free: { name: "Free", rateLimit: 30, liveKeys: 1, maxLinks: 500, webhookEndpoints: 0, features: ["ApiAccess"] },
  pro: { name: "Pro", rateLimit: 120, liveKeys: 3, maxLinks: 5000, webhookEndpoints: 0, features: pro },
  team: {
    name: "Team",
    rateLimit: 600,
    liveKeys: 10,
    maxLinks: 50000,
    webhookEndpoints: 10,
    features: [...pro, "BulkLinks", "Webhooks", "RequireSecondFactor", "ABTesting"],
  },
  business: {
    name: "Business",
    rateLimit: 3000,
    liveKeys: 25,
    maxLinks: 500000,
    webhookEndpoints: 25,
    features: [...pro, "BulkLinks", "Webhooks", "RequireSecondFactor", "ABTesting"],
  },
};

/** Retention of click events for the built-in plan ids when a plan does not set its own. */
export const DEFAULT_ANALYTICS_RETENTION_DAYS: Record<string, number> = { free: 30, pro: 365, team: 730, business: 1095 };
/** ... and for any other plan id without its own */
export const FALLBACK_ANALYTICS_RETENTION_DAYS = 30;

/** Webhook deliveries per second to one endpoint, for the built-in plan ids when a plan does not set its own. */
export const DEFAULT_WEBHOOK_RATES: Record<string, number> = { team: 50, business: 200 };
/** ... and for any other plan id without its own */
export const FALLBACK_WEBHOOK_RATE = 50;

export class PlansFileError extends Error {}

export function loadPlans(file = process.env.PLANS_FILE): Record<string, Plan> {
  let table: Record<string, Omit<Plan, "id">> = DEFAULT_PLANS;
  if (file) {
    let raw: unknown;
    try {
      raw = JSON.parse(fs.readFileSync(file, "utf8"));
    } catch (e) {
      throw new PlansFileError(`PLANS_FILE ${file}: cannot read JSON (${(e as Error).message})`);
    }
    const parsed = fileSchema.safeParse(raw);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
      throw new PlansFileError(`PLANS_FILE ${file}: ${issues}`);
    }
    if (Object.keys(parsed.data.plans).length === 0) throw new PlansFileError(`PLANS_FILE ${file}: no plans`);
    table = parsed.data.plans;
  }
  return Object.fromEntries(Object.entries(table).map(([id, p]) => [id, { ...p, id }]));
}

export function plans(): Record<string, Plan> {
  return shared("plans", loadPlans);
}

export function resetPlans() {
  setShared("plans", undefined);
}

export function isPlanId(id: string): boolean {
  return Object.hasOwn(plans(), id);
}

/** The workspace's plan; an id no longer in the table falls back to the first plan (most restrictive by convention). */
export function planOf(planId: string): Plan {
  const table = plans();
  return table[planId] ?? Object.values(table)[0];
}

export function hasFeature(plan: Plan, feature: Feature): boolean {
  return plan.features.includes(feature);
}

export function webhooksAllowed(plan: Plan): boolean {
  return plan.features.includes("Webhooks") && plan.webhookEndpoints > 0;
}

/** Days of click events the plan answers and keeps. */
export function analyticsRetentionDays(plan: Pick<Plan, "id" | "analyticsRetentionDays">): number {
  return plan.analyticsRetentionDays ?? DEFAULT_ANALYTICS_RETENTION_DAYS[plan.id] ?? FALLBACK_ANALYTICS_RETENTION_DAYS;
}

/** Deliveries per second the plan allows to each of a workspace's endpoints (beyond it they wait in order). */
export function webhookRatePerSecond(plan: Pick<Plan, "id" | "webhookRatePerSecond">): number {
  return plan.webhookRatePerSecond ?? DEFAULT_WEBHOOK_RATES[plan.id] ?? FALLBACK_WEBHOOK_RATE;
}
