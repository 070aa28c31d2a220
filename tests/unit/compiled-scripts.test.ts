import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { adminCli, nodeFlags, serverEntry } from "../support/compiled.ts";

const root = path.resolve(import.meta.dirname, "../..");

// The tests start tests/support/compiled.ts's command; production starts package.json's.
describe("the compiled server and admin CLI", () => {
  it("npm start and npm run admin run the dist/ files with the node flags the tests use", () => {
    const { scripts } = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { scripts: Record<string, string> };
    const asInScripts = (arg: string) => (arg.startsWith("file:") ? `./${path.relative(root, fileURLToPath(arg))}` : arg);
    const command = (entry: string) => ["node", ...nodeFlags.map(asInScripts), path.relative(root, entry)].join(" ");
    expect(scripts.start).toBe(command(serverEntry));
    expect(scripts.admin).toBe(command(adminCli));
  });
});
