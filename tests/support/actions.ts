import fs from "node:fs";
import path from "node:path";

// Calls a server action of the built app over HTTP, as the browser does: POST to a page that uses
// the action (Next answers only for those), with the action's id (from Next's server-reference manifest) in the Next-Action header and the arguments
// as a JSON array. Returns the action's return value.

const root = path.resolve(import.meta.dirname, "../..");

type Manifest = { node: Record<string, { filename: string; exportedName: string }> };

export function actionId(filename: string, exportedName: string): string {
  const distDir = process.env.NEXT_DIST_DIR || ".next";
  const manifest = JSON.parse(fs.readFileSync(path.join(root, distDir, "server", "server-reference-manifest.json"), "utf8")) as Manifest;
  const found = Object.entries(manifest.node).find(([, v]) => v.filename === filename && v.exportedName === exportedName);
  if (!found) throw new Error(`no server action ${exportedName} in ${filename} in the build (rebuild: npm run build)`);
  return found[0];
}

export async function callAction<T = unknown>(
  baseUrl: string,
  opts: { page: string; file: string; name: string; cookie: string },
  args: unknown[],
): Promise<T> {
  const res = await fetch(`${baseUrl}${opts.page}`, {
    method: "POST",
    redirect: "manual",
    headers: {
      accept: "text/x-component",
      "content-type": "text/plain;charset=UTF-8",
      "next-action": actionId(opts.file, opts.name),
      cookie: opts.cookie,
      origin: baseUrl,
    },
    body: JSON.stringify(args),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${opts.name}: HTTP ${res.status}: ${text.slice(0, 500)}`);
  // The answer is React's flight format: one "<row id>:<json>" line per row; row 0 points at the
  // row holding the return value ("$@<id>").
  const rows = new Map<string, string>();
  for (const line of text.split("\n")) {
    const m = /^([0-9a-f]+):(.*)$/.exec(line);
    if (m) rows.set(m[1], m[2]);
  }
  if (!rows.has("0")) throw new Error(`${opts.name}: not an action answer (is the action used on ${opts.page}?): ${text.slice(0, 500)}`);
  const head = JSON.parse(rows.get("0")!) as { a?: unknown };
  const ref = typeof head.a === "string" && head.a.startsWith("$@") ? head.a.slice(2) : null;
  if (ref === null) return head.a as T;
  const value = rows.get(ref);
  if (value === undefined) throw new Error(`${opts.name}: no return value in the answer: ${text.slice(0, 500)}`);
  return JSON.parse(value) as T;
}
