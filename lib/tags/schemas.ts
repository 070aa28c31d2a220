import { z } from "zod";

// Tag shapes: the API's bodies and the link field `tags` (names). Names are compared ignoring case
// (nameKey); a comma is refused so a CSV cell can hold several names ("a, b").

export const TAG_COLORS = ["gray", "red", "orange", "yellow", "green", "teal", "blue", "purple", "pink"] as const;
export type TagColor = (typeof TAG_COLORS)[number];
export const TAG_NAME_MAX = 50;
export const TAGS_PER_LINK_MAX = 25;

// No import from lib/links: the link schemas import these.
export const tagName = z
  .string()
  .trim()
  .min(1, "must not be empty")
  .max(TAG_NAME_MAX, `must be at most ${TAG_NAME_MAX} characters`)
  .refine((v) => !v.includes(","), "must not contain a comma")
  // eslint-disable-next-line no-control-regex
  .refine((v) => !/[\u0000-\u001f\u007f]/.test(v), "must not contain control characters or NUL")
  .describe("Tag name, unique in the workspace ignoring case.");

export const tagColor = z.enum(TAG_COLORS, { error: `must be one of ${TAG_COLORS.join(", ")}` }).describe("Colour of the tag's chip.");

/** The key names are unique by: the same tag whatever the case. */
export function tagKey(name: string): string {
  return name.normalize("NFC").toLowerCase();
}

/** The `tags` field of link bodies: names; duplicates (ignoring case) are kept once. */
export const linkTagsSchema = z
  .array(tagName)
  .max(TAGS_PER_LINK_MAX, `at most ${TAGS_PER_LINK_MAX} tags per link`)
  .transform((names) => {
    const seen = new Set<string>();
    return names.filter((n) => !seen.has(tagKey(n)) && seen.add(tagKey(n)));
  })
  .describe("Tag names. Tags that do not exist yet are created (colour gray).");

export const createTagSchema = z.strictObject({
  name: tagName,
  color: tagColor.optional().describe("Default gray."),
});
export type CreateTagInput = z.output<typeof createTagSchema>;

export const updateTagSchema = z.strictObject({
  name: tagName.optional(),
  color: tagColor.optional(),
});
export type UpdateTagInput = z.output<typeof updateTagSchema>;

export const apiTagSchema = z.strictObject({
  id: z.number().int(),
  name: z.string(),
  color: tagColor,
  createdOn: z.number().int().describe("Unix seconds."),
});
export type ApiTag = z.output<typeof apiTagSchema>;

export const listTagsResponseSchema = z.strictObject({ tags: z.array(apiTagSchema).describe("All tags of the workspace, by name.") });
export const deleteTagResponseSchema = z.strictObject({ id: z.number().int(), deleted: z.literal(true) });
