import { z } from "zod";
import { now } from "../clock.ts";
import { httpUrl, text } from "../links/field-schemas.ts";
import { DEVICES, MAX_RULES, OPERATING_SYSTEMS, ruleSchema, variantsSchema } from "../links/routing-schema.ts";
import { targetingSchema } from "../links/schemas.ts";
import { compileRouting, decideDestination, type Decision } from "./decide.ts";
import { parseVisitQuery } from "./visit-query.ts";

// The link form's "what would this visitor get" tester: the form's routing (as typed, not yet saved)
// and a made-up visitor, answered by the very functions the redirect runs for each visit
// (decide.ts compileRouting and decideDestination). The visitor's country counts as the country
// header too, so targeting by country answers as it does behind a proxy that sends one.

export const visitorSchema = z.strictObject({
  country: z
    .string()
    .trim()
    .regex(/^([A-Za-z]{2})?$/, "a two-letter country code such as DE")
    .transform((c) => (c ? c.toUpperCase() : null)),
  language: z
    .string()
    .trim()
    .regex(/^([A-Za-z]{2,8})?$/, "a language such as de or en")
    .transform((l) => (l ? l.toLowerCase() : null)),
  device: z.enum(DEVICES),
  os: z.enum(OPERATING_SYSTEMS),
  /** the query string of the visit, without "?" (a=1&b=2) */
  query: text().max(2000, "at most 2000 characters"),
  /** the moment of the visit in unix seconds; absent: now on the app's clock */
  at: z.number().int().min(0).max(253_402_300_799).optional(),
});

export const visitorTestSchema = z.strictObject({
  url: httpUrl,
  targeting: targetingSchema.nullable(),
  rules: z.array(ruleSchema).max(MAX_RULES, `at most ${MAX_RULES} rules`),
  variants: variantsSchema.nullable(),
  visitor: visitorSchema,
});
export type VisitorTest = z.output<typeof visitorTestSchema>;

/** Where the visitor would be sent (before forwarding); a variant is drawn as a new visitor's would be. */
export function testVisitor(input: VisitorTest, random: () => number = Math.random): Decision {
  const routing = { rules: input.rules, ...(input.variants ? { variants: input.variants } : {}) };
  const compiled = compileRouting(input.url, routing, input.targeting);
  const v = input.visitor;
  const nowMs = v.at !== undefined ? v.at * 1000 : now().getTime();
  const query = parseVisitQuery(v.query ? `?${v.query.replace(/^\?/, "")}` : undefined);
  return decideDestination(
    compiled,
    { country: v.country, headerCountry: v.country, language: v.language, device: v.device, os: v.os, query, bot: false },
    nowMs,
    random,
  );
}
