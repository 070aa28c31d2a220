import fs from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { formField } from "../../lib/actions/form.ts";

const root = path.resolve(import.meta.dirname, "../..");

function sources(dir: string): string[] {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) return sources(rel);
    return /\.tsx?$/.test(e.name) ? [rel] : [];
  });
}

describe("server actions in forms", () => {
  // A bound action in a form that answers without JavaScript made React render the page without
  // end (lib/actions/form.ts); values travel in hidden fields instead.
  test("no component binds a value to a server action", () => {
    const bound = [...sources("app"), ...sources("components")].filter((f) =>
      /Action\.bind\(/.test(fs.readFileSync(path.join(root, f), "utf8")),
    );
    expect(bound).toEqual([]);
  });

  test("formField reads a text field and gives an empty string for anything else", () => {
    const form = new FormData();
    form.append("slug", "acme");
    form.append("file", new Blob(["x"]));
    expect(formField(form, "slug")).toBe("acme");
    expect(formField(form, "file")).toBe("");
    expect(formField(form, "missing")).toBe("");
  });
});
