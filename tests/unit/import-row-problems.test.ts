import { describe, expect, it } from "vitest";
import { toLinkBody } from "../../lib/links/csv-rows.ts";
import { createLinkSchema } from "../../lib/links/schemas.ts";
import { rowProblemsInWords } from "../../lib/links/row-problems.ts";

/** A CSV record through the import's own steps: converted, checked by the API's row schema, put in words. */
function problems(record: Record<string, string>, row = 4): string[] {
  const converted = toLinkBody(record, row);
  if (!("body" in converted)) throw new Error("conversion failed: " + converted.errors.join(" "));
  const parsed = createLinkSchema.safeParse(converted.body);
  return parsed.success ? [] : rowProblemsInWords(row, parsed.error.issues, converted.body);
}

describe("import row problems in words", () => {
  it("a missing URL", () => {
    expect(problems({ url: "", title: "Spring" })).toEqual(["Row 4: the URL is missing"]);
  });

  it("a URL that is not http or https quotes the value", () => {
    expect(problems({ url: "ftp://x" }, 7)).toEqual(["Row 7: 'ftp://x' is not a web address (use http or https)"]);
    expect(problems({ url: "https://example.com", fallbackUrl: "mailto:a@b" })).toEqual([
      "Row 4: 'mailto:a@b' is not a web address (use http or https)",
    ]);
    expect(problems({ url: "https://example.com", geo: "US=ftp://us" })).toEqual([
      "Row 4: 'ftp://us' is not a web address (use http or https)",
    ]);
  });

  it("other fields are named as the columns call them, with the schema's own sentence", () => {
    expect(problems({ url: "https://example.com", alias: "a b" })).toEqual([
      "Row 4: the alias must be 1 to 40 characters: letters, digits, - and _",
    ]);
    expect(problems({ url: "https://example.com", maxClicks: "0" })).toEqual(["Row 4: the click limit (maxClicks) must be at least 1"]);
    expect(problems({ url: "https://example.com", title: "x".repeat(501) })).toEqual(["Row 4: the title must be at most 500 characters"]);
  });

  it("no zod wording reaches the person", () => {
    for (const p of [...problems({ url: "" }), ...problems({ url: "nope" })]) {
      expect(p).not.toMatch(/Invalid input|expected string|received undefined/);
    }
  });
});
