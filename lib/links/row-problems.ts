// The import's row problems in words: the zod issues of the one row schema (createLinkSchema, the
// API's create body) as sentences a person fixes a spreadsheet by ("Row 4: the URL is missing"),
// instead of zod's own ("url: Invalid input: expected string, received undefined"). Pure and
// browser-safe: the import page (app/w/[slug]/links/import) checks rows before sending them.

export type RowIssue = { code: string; path: readonly PropertyKey[]; message: string; input?: unknown };

const URL_INVALID = "must be an absolute http or https URL";

/** The CSV column (or part of one) a path names, as the import's columns call it. */
export function fieldInWords(path: readonly PropertyKey[]): string {
  const [head, second, third] = path.map(String);
  switch (head) {
    case "url":
      return "the URL";
    case "fallbackUrl":
      return "the fallback URL";
    case "maxClicks":
      return "the click limit (maxClicks)";
    case "expiresOn":
      return "the expiry (expiresOn)";
    case "startsOn":
      return "the start (startsOn)";
    case "targeting":
      if (second === "ios") return "the iOS URL";
      if (second === "android") return "the Android URL";
      if (second === "geo") return third ? `the URL for ${third} (geo)` : "the geo column";
      return "the targeting";
    case "tags":
      return second !== undefined ? `tag ${Number(second) + 1}` : "the tags";
    case "variants":
    case "rules":
    case "preview":
      return second !== undefined ? `the ${head} column (item ${Number(second) + 1})` : `the ${head} column`;
    case undefined:
      return "the row";
    default:
      return `the ${head}`;
  }
}

/** The value the body holds at a path, for quoting it back. */
function valueAt(body: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = body;
  for (const key of path) v = v && typeof v === "object" ? (v as Record<PropertyKey, unknown>)[key] : undefined;
  return v;
}

const quoted = (v: unknown) => {
  const s = typeof v === "string" ? v : JSON.stringify(v);
  return `'${s.length > 60 ? s.slice(0, 57) + "..." : s}'`;
};

/** One issue as a sentence, without the row number. */
export function issueInWords(issue: RowIssue, body: unknown): string {
  const field = fieldInWords(issue.path);
  const value = valueAt(body, issue.path);
  if (issue.code === "invalid_type" && value === undefined) return `${field} is missing`;
  if (issue.code === "unrecognized_keys") return `the row has columns the import does not know (${issue.message.replace(/^.*?:\s*/, "")})`;
  if (issue.message === URL_INVALID) return `${quoted(value)} is not a web address (use http or https)`;
  if (issue.code === "invalid_type") return `${field} has the wrong kind of value ${quoted(value)}`;
  return `${field} ${issue.message}`;
}

/** Every issue of a row as "Row N: ..." (N as the import numbers rows), each once. */
export function rowProblemsInWords(row: number, issues: readonly RowIssue[], body: unknown): string[] {
  return [...new Set(issues.map((i) => `Row ${row}: ${issueInWords(i, body)}`))];
}
