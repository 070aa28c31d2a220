// The JavaScript that `npm start` and `npm run admin` run: server.ts and lib/admin/cli.ts, with the
// repository's own modules they load, compiled by esbuild into dist/ (run by scripts/build.mjs
// after `next build`; `node scripts/compile-server.mjs` alone recompiles only this).
// - Code splitting keeps every `await import("./lib/...")` of server.ts a module loaded at that
//   point, as under tsx: packages a lib module imports are not loaded before server.ts asks for it.
// - Packages stay in node_modules (imported as they are), so dist/ holds only this repository's code.
// - dist/inputs.json lists the compiled sources; scripts/compiled-check.mjs compares them with the
//   build before a start.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const outdir = path.join(root, "dist");

/** "node20.19" from engines.node ">=20.19": the oldest Node.js the code must run on. */
function nodeTarget() {
  const { engines } = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
  const version = /\d+(\.\d+)*/.exec(engines?.node ?? "")?.[0];
  if (!version) throw new Error(`package.json engines.node (${engines?.node}) names no version`);
  return `node${version}`;
}

export async function compileServer() {
  const started = Date.now();
  fs.rmSync(outdir, { recursive: true, force: true });
  const { metafile } = await esbuild.build({
    absWorkingDir: root,
    entryPoints: { server: "server.ts", admin: "lib/admin/cli.ts" },
    outdir,
    chunkNames: "chunks/[name]-[hash]",
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: nodeTarget(),
    packages: "external",
    // Stack traces name the .ts lines (`node --enable-source-maps`, as the npm scripts start it).
    sourcemap: "linked",
    metafile: true,
    logLevel: "warning",
  });
  const inputs = Object.keys(metafile.inputs).sort();
  fs.writeFileSync(path.join(outdir, "inputs.json"), JSON.stringify(inputs, null, 1) + "\n");
  console.log(`[build] server.ts and lib/admin/cli.ts (${inputs.length} sources) compiled into dist/ in ${Date.now() - started} ms`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await compileServer();
