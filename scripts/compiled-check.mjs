// Loaded before dist/server.js and dist/admin.js (`node --import ./scripts/compiled-check.mjs`, the
// npm start and admin scripts): refuses to run JavaScript that is missing or older than the
// sources it was compiled from (dist/inputs.json, written by scripts/compile-server.mjs), with one
// line naming the command that fixes it. The admin CLI answers in its own form, one JSON object.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Why dist/ cannot be run, or null when it holds a build of the current sources. */
function compiledStaleness() {
  const list = path.join(root, "dist", "inputs.json");
  let built, inputs;
  try {
    built = fs.statSync(list).mtimeMs;
    inputs = JSON.parse(fs.readFileSync(list, "utf8"));
  } catch {
    return "no compiled server in dist/";
  }
  const changed = inputs.filter((file) => {
    try {
      return fs.statSync(path.join(root, file)).mtimeMs > built;
    } catch {
      return true; // deleted or renamed since
    }
  });
  if (!changed.length) return null;
  const more = changed.length > 1 ? ` and ${changed.length - 1} more` : "";
  return `${changed[0]}${more} changed after the build in dist/`;
}

const why = compiledStaleness();
if (why) {
  const message = `${why}: run \`npm run build\``;
  if (path.basename(process.argv[1] ?? "") === "admin.js") process.stdout.write(JSON.stringify({ error: "config", message }) + "\n");
  else console.error(`[linkhop] ${message}`);
  process.exit(1);
}
