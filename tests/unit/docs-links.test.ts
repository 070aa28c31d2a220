import fs from "node:fs";
import path from "node:path";
import GithubSlugger from "github-slugger";
import { marked, type Token, type Tokens } from "marked";
import { describe, expect, it } from "vitest";

// The README and docs/ as a newcomer reads them on GitHub: every relative link (and image) points at
// a file that exists, and a link's #fragment at a heading of the file it names (GitHub's anchors,
// github-slugger); the README stays a first ten minutes' read, at most 250 lines.

const root = path.resolve(import.meta.dirname, "../..");
const docs = [
  "README.md",
  ...fs
    .readdirSync(path.join(root, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];
const README_MAX_LINES = 250;

const tokensOf = (file: string) => marked.lexer(fs.readFileSync(path.join(root, file), "utf8"));

/** A heading's text as GitHub renders it (code spans and links as their text), for its anchor. */
function plain(tokens: Token[] | undefined): string {
  return (tokens ?? []).map((t) => ("tokens" in t && t.tokens ? plain(t.tokens) : "text" in t ? String(t.text) : "")).join("");
}

const anchorCache = new Map<string, Set<string>>();
function anchorsOf(file: string): Set<string> {
  let anchors = anchorCache.get(file);
  if (!anchors) {
    const slugger = new GithubSlugger();
    anchors = new Set();
    marked.walkTokens(tokensOf(file), (t) => {
      if (t.type === "heading") anchors!.add(slugger.slug(plain((t as Tokens.Heading).tokens)));
    });
    anchorCache.set(file, anchors);
  }
  return anchors;
}

/** Every link and image target of a file, as written. */
function targetsOf(file: string): string[] {
  const found: string[] = [];
  marked.walkTokens(tokensOf(file), (t) => {
    if (t.type === "link" || t.type === "image") found.push((t as Tokens.Link).href);
  });
  return found;
}

describe("README and docs/", () => {
  it("the README has at most 250 lines", () => {
    const lines = fs.readFileSync(path.join(root, "README.md"), "utf8").trimEnd().split("\n").length;
    expect(lines).toBeLessThanOrEqual(README_MAX_LINES);
  });

  for (const file of docs) {
    it(`${file}: every relative link points at a file, and its #fragment at a heading there`, () => {
      const broken: string[] = [];
      const relative = targetsOf(file).filter((href) => !/^[a-z][a-z0-9+.-]*:/i.test(href));
      for (const href of relative) {
        const [target, fragment] = href.split("#", 2) as [string, string | undefined];
        const resolved = target ? path.normalize(path.join(path.dirname(file), decodeURIComponent(target))) : file;
        if (resolved.startsWith("..") || !fs.existsSync(path.join(root, resolved))) {
          broken.push(`${href}: no file ${resolved}`);
          continue;
        }
        if (fragment !== undefined && resolved.endsWith(".md") && !anchorsOf(resolved).has(fragment))
          broken.push(`${href}: no heading #${fragment} in ${resolved}`);
      }
      expect(broken).toEqual([]);
    });
  }

  it("finds links in every file, so a parsing change cannot make the checks above vacuous", () => {
    expect(targetsOf("README.md").filter((h) => h.startsWith("docs/")).length).toBeGreaterThan(10);
    expect(anchorsOf("docs/operations.md").has("installing-and-starting")).toBe(true);
  });
});
