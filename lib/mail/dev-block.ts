// A mail without SMTP_URL, as a person at a terminal reads it (pretty logs: `npm run dev`, or
// stdout a terminal): who it is for, its subject, and each link on a line of its own, ready to
// click or copy, instead of the whole text with its line breaks escaped inside one JSON line.
//
//   [mail] (no SMTP_URL) to ada@example.test: Confirm your email address
//     http://localhost:3000/verify/abc...

const LINK = /https?:\/\/[^\s<>"')\]]+/g;

/** The links of a mail's text, in order, each once (a trailing full stop or comma is not part of one). */
export function linksOf(text: string): string[] {
  const found = (text.match(LINK) ?? []).map((u) => u.replace(/[.,;:!?]+$/, ""));
  return [...new Set(found)];
}

/** The block: a first line naming the recipients and the subject, then one indented line per link. */
export function devMailBlock(to: string[], subject: string, text: string): string {
  const links = linksOf(text);
  const head = `(no SMTP_URL) to ${to.join(", ")}: ${subject}`;
  return [head, ...(links.length ? links : ["(no link; set SMTP_URL to receive the full text)"]).map((l) => `  ${l}`)].join("\n");
}
