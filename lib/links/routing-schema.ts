import { z } from "zod";
import { httpUrl, text } from "./field-schemas.ts";

// Link routing (forwarding, A/B variants, rules, preview): the request shapes, one zod schema each,
// and the canonical stored form (Link.routing, one JSON column beside targeting). Like targeting,
// these are settings outside the link object: returned in the API link object, never in the
// webhook link object. Which destination a visit gets is decided in lib/redirects (decide.ts).

export const MAX_RULES = 20;
export const MIN_VARIANTS = 2;
export const MAX_VARIANTS = 10;
export const PREVIEW_TITLE_MAX = 200;
export const PREVIEW_DESCRIPTION_MAX = 500;

export const DEVICES = ["desktop", "mobile", "tablet", "other"] as const;
export const OPERATING_SYSTEMS = ["ios", "android", "windows", "macos", "linux", "other"] as const;

const country = z.string().regex(/^[A-Z]{2}$/, "country codes are ISO 3166 alpha-2, upper case");
const language = z
  .string()
  .regex(/^[A-Za-z]{2,8}$/, "languages are primary subtags such as de or en")
  .transform((v) => v.toLowerCase());
const nonEmptyList = <T extends z.ZodType>(item: T, max: number) => z.array(item).min(1, "must not be empty").max(max, `at most ${max}`);

/** A valid IANA time zone name (as Intl knows it). */
const timeZone = text()
  .max(64)
  .refine((tz) => {
    try {
      new Intl.DateTimeFormat("en-US", { timeZone: tz });
      return true;
    } catch {
      return false;
    }
  }, "must be an IANA time zone such as Europe/Berlin");

const unixSeconds = z.number().int("must be whole unix seconds").min(0).max(253_402_300_799);

/** One redirect rule: a destination and at least one condition; every given condition must match. */
export const ruleSchema = z
  .strictObject({
    url: httpUrl,
    countries: nonEmptyList(country, 250).optional(),
    languages: nonEmptyList(language, 50).optional(),
    devices: nonEmptyList(z.enum(DEVICES), DEVICES.length).optional(),
    os: nonEmptyList(z.enum(OPERATING_SYSTEMS), OPERATING_SYSTEMS.length).optional(),
    query: z
      .record(text().min(1).max(100), text().max(500))
      .refine((q) => Object.keys(q).length >= 1 && Object.keys(q).length <= 20, "1 to 20 parameters")
      .optional()
      .describe('Parameter name -> exact value, or "*" for present with any value.'),
    after: unixSeconds.optional(),
    before: unixSeconds.optional(),
    days: nonEmptyList(z.number().int().min(0).max(6), 7).optional().describe("Days of the week in timeZone, 0 = Sunday."),
    hours: z
      .tuple([z.number().int().min(0).max(23), z.number().int().min(1).max(24)])
      .refine(([from, to]) => from < to, "hours are [from, to) with from < to")
      .optional()
      .describe("[from, to) hours of the day in timeZone."),
    timeZone: timeZone.optional().describe("IANA time zone of days and hours (default UTC)."),
  })
  .refine((r) => Object.keys(r).some((k) => k !== "url" && k !== "timeZone"), "a rule needs at least one condition")
  .refine((r) => r.after === undefined || r.before === undefined || r.after < r.before, "after must be before before");
export type RedirectRule = z.infer<typeof ruleSchema>;

export const variantSchema = z.strictObject({
  url: httpUrl,
  weight: z.number().int("weights are whole numbers").min(1).max(99),
});
export type Variant = z.infer<typeof variantSchema>;

export const variantsSchema = z
  .array(variantSchema)
  .min(MIN_VARIANTS, `at least ${MIN_VARIANTS} variants`)
  .max(MAX_VARIANTS, `at most ${MAX_VARIANTS} variants`)
  .refine((v) => v.reduce((s, x) => s + x.weight, 0) === 100, "weights must sum to 100");

export const previewSchema = z
  .strictObject({
    title: text().trim().min(1).max(PREVIEW_TITLE_MAX).optional(),
    description: text().trim().min(1).max(PREVIEW_DESCRIPTION_MAX).optional(),
    image: httpUrl.refine((u) => u.startsWith("https://"), "must be an https URL").optional(),
  })
  .refine((p) => p.title !== undefined || p.description !== undefined || p.image !== undefined, "needs a title, description or image");
export type Preview = z.infer<typeof previewSchema>;

/** The routing fields of a create, bulk row or PATCH body (null clears one; false clears forwardQuery and forwardPath). */
export const routingFields = {
  forwardQuery: z
    .boolean()
    .nullable()
    .optional()
    .describe("Merge the visit's query string into the destination (default false; false or null clears)."),
  forwardPath: z
    .boolean()
    .nullable()
    .optional()
    .describe("Send /<code>/<rest> to the destination with /<rest> joined (default false; false or null clears). Feature RedirectRules."),
  variants: variantsSchema
    .nullable()
    .optional()
    .describe("A/B split: 2 to 10 variants, whole weights 1 to 99 summing to 100; null clears. Feature ABTesting."),
  rules: z
    .array(ruleSchema)
    .max(MAX_RULES, `at most ${MAX_RULES} rules`)
    .nullable()
    .optional()
    .describe("Ordered redirect rules, the first whose every condition matches wins; null clears. Feature RedirectRules."),
  preview: previewSchema
    .nullable()
    .optional()
    .describe("Social preview card for link-preview fetchers; null clears. Feature LinkPreviews."),
};

/** The routing fields of the API link object: every one present, unset ones false or null. */
export const routingViewFields = {
  forwardQuery: z.boolean(),
  forwardPath: z.boolean(),
  variants: z.array(variantSchema).nullable(),
  rules: z.array(ruleSchema).nullable(),
  preview: previewSchema.nullable(),
};

/** Link.routing: only what is set (no false, no empty list); null when nothing is. */
export type LinkRouting = {
  forwardQuery?: true;
  forwardPath?: true;
  variants?: Variant[];
  rules?: RedirectRule[];
  preview?: Preview;
};
