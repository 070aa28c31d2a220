// The files the container image's runtime stage needs, gathered after `npm run build` into one
// folder (the Dockerfile's build stage runs `node scripts/container-files.mjs /out`):
// - the build: .next/ without its cache, dist/ (server and admin CLI), prisma/migrations (applied at
//   start), package.json, and next.config.ts compiled to next.config.mjs (loading a .ts config at
//   start would need Next's SWC compiler, some 100 MB);
// - from node_modules only what those load: the files Next traced for its server and every route
//   (.next/**/*.nft.json), the files dist/*.js import (traced the same way, with the tracer Next
//   ships), and the packages read as data rather than imported (the embedded PostgreSQL binaries,
//   the bundled country database).
// Build tools (TypeScript, esbuild, Tailwind, the Prisma CLI), dev dependencies, tests and
// Playwright are left behind. Prints the size gathered.
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import { embeddedPostgresPackage } from "../lib/db/platform.mjs";

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const distDir = process.env.NEXT_DIST_DIR || ".next";
// Never in the image: build caches and the build's own type and diagnostic files.
const SKIP_IN_NEXT = new Set(["cache", "types", "diagnostics", "trace", "trace-build", "standalone", "lock"]);
// Whole packages the code reads as files (spawned binaries, data), which a tracer cannot follow.
const DATA_PACKAGES = [embeddedPostgresPackage(), "@ip-location-db/geo-whois-asn-country-mmdb"].filter(Boolean);
// What `next()` (a custom server, not Next's standalone one) require.resolve()s while loading its
// config (next/dist/server/config-utils.js loadWebpackHook): resolved, never run, so not traced.
const RESOLVED_BY_NEXT = ["next/dist/compiled/webpack", "next/dist/compiled/@babel/runtime"];
// Traced files left out: the sources Next traced (the build replaces them), packages' source maps,
// and Next's development runtimes (the tracer follows `next()`'s dev branch; the image never runs it).
function unneeded(rel) {
  if (!rel.startsWith(`node_modules${path.sep}`)) return true;
  return rel.endsWith(".map") || /next\/dist\/compiled\/next-server\/[^/]*\.dev\.js$/.test(rel);
}

function walk(dir, out = []) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(p, out);
    else out.push(p);
  }
  return out;
}

/** Every file Next traced for its server and routes, relative to the repository root. */
function nextTraces() {
  const files = new Set();
  for (const file of walk(path.join(root, distDir))) {
    if (!file.endsWith(".nft.json") || file.includes(`${path.sep}cache${path.sep}`)) continue;
    const { files: traced } = JSON.parse(fs.readFileSync(file, "utf8"));
    for (const f of traced) {
      const rel = path.relative(root, path.resolve(path.dirname(file), f));
      if (!unneeded(rel)) files.add(rel);
    }
  }
  return files;
}

// Following `next()` (server.ts) leads into Next's build tooling, development server and docs,
// which serving never loads: not following those makes the trace about five times faster.
const NEXT_BUILD_TIME =
  /^node_modules\/(next\/dist\/(docs|server\/dev|build\/(webpack|babel)|compiled\/(webpack|babel|babel-packages))\/|caniuse-lite\/)/;

/** The files dist/*.js import (packages included), traced from its entry points. */
async function distTraces() {
  const { nodeFileTrace } = require("next/dist/compiled/@vercel/nft");
  const entries = walk(path.join(root, "dist")).filter((f) => f.endsWith(".js"));
  const ignore = (rel) => unneeded(rel) || NEXT_BUILD_TIME.test(rel.split(path.sep).join("/"));
  const { fileList } = await nodeFileTrace(entries, { base: root, processCwd: root, ignore });
  return new Set([...fileList].filter((f) => !ignore(f)));
}

/** Copies one file or symlink (as a link) from the repository into `out`, keeping its path. */
function copyEntry(rel, out) {
  const src = path.join(root, rel);
  const dst = path.join(out, rel);
  const st = fs.lstatSync(src, { throwIfNoEntry: false });
  if (!st || fs.existsSync(dst) || fs.lstatSync(dst, { throwIfNoEntry: false })) return;
  fs.mkdirSync(path.dirname(dst), { recursive: true });
  if (st.isSymbolicLink()) fs.symlinkSync(fs.readlinkSync(src), dst);
  else if (st.isDirectory()) fs.cpSync(src, dst, { recursive: true, verbatimSymlinks: true });
  else fs.copyFileSync(src, dst);
}

function sizeOf(dir) {
  let bytes = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) bytes += sizeOf(p);
    else if (entry.isFile()) bytes += fs.statSync(p).size;
  }
  return bytes;
}

export async function gatherContainerFiles(out) {
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  const files = new Set(["package.json"]);
  for (const entry of fs.readdirSync(path.join(root, distDir))) {
    if (!SKIP_IN_NEXT.has(entry)) files.add(path.join(distDir, entry));
  }
  for (const f of walk(path.join(root, "dist"))) files.add(path.relative(root, f));
  files.add("prisma/migrations");
  for (const name of [...DATA_PACKAGES, ...RESOLVED_BY_NEXT]) files.add(path.join("node_modules", name));
  for (const f of nextTraces()) files.add(f);
  for (const f of await distTraces()) files.add(f);
  // Directories first (copied whole), then single files not already inside one.
  const sorted = [...files].sort();
  for (const rel of sorted) copyEntry(rel, out);
  await esbuild.build({
    entryPoints: [path.join(root, "next.config.ts")],
    outfile: path.join(out, "next.config.mjs"),
    format: "esm",
    platform: "node",
    logLevel: "warning",
  });
  // Next reads .nft.json files only when it builds; they are not needed to serve.
  for (const f of walk(path.join(out, distDir))) if (f.endsWith(".nft.json")) fs.rmSync(f);
  const mb = (sizeOf(out) / 1e6).toFixed(0);
  console.log(`[container-files] ${files.size} entries, ${mb} MB gathered into ${out}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = process.argv[2];
  if (!out) {
    console.error("usage: node scripts/container-files.mjs OUT_DIR");
    process.exit(2);
  }
  await gatherContainerFiles(path.resolve(out));
}
