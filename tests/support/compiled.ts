// What `npm start` and `npm run admin` run (package.json): the JavaScript that `npm run build`
// compiled into dist/ (scripts/compile-server.mjs), under the same node flags. Tests and benchmarks
// start these, so they exercise what production runs; tests/unit/compiled-scripts.test.ts keeps
// them equal to the npm scripts.
import path from "node:path";
import { pathToFileURL } from "node:url";

const root = path.resolve(import.meta.dirname, "../..");

export const serverEntry = path.join(root, "dist/server.js");
export const adminCli = path.join(root, "dist/admin.js");
/** Source-mapped stack traces, and the check that dist/ is a build of the current sources. */
export const nodeFlags = ["--enable-source-maps", "--import", pathToFileURL(path.join(root, "scripts/compiled-check.mjs")).href];
