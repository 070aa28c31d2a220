// Runs after `npm install`: what a fresh clone needs before `npm start` or `npm test`.
// 1. Restore the symlinks of the embedded PostgreSQL binaries of whichever platform package npm
//    installed (npm 11 skips that package's own install script). 2. Generate the Prisma client.
//    3. Build the Next.js app and compile the server to dist/, so `npm start` serves within seconds
//       (skip with LINKHOP_SKIP_BUILD=1).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { embeddedPostgresPackage } from "../lib/db/platform.mjs";

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
process.chdir(root);

function step(name, fn) {
  const t = Date.now();
  fn();
  console.log(`[postinstall] ${name} (${((Date.now() - t) / 1000).toFixed(1)} s)`);
}

step("embedded PostgreSQL symlinks", () => {
  // npm installs only the optional dependency matching this os/cpu. None (an unsupported platform,
  // or --omit=optional) is not an install failure: the app then needs DATABASE_URL and says so.
  const name = embeddedPostgresPackage();
  let entry;
  try {
    entry = name && require.resolve(name);
  } catch {
    entry = null;
  }
  if (!entry) {
    console.log(`[postinstall] no embedded PostgreSQL for ${process.platform}-${process.arch}: set DATABASE_URL`);
    return;
  }
  const pkg = path.dirname(path.dirname(entry));
  const listFile = path.join(pkg, "native", "pg-symlinks.json");
  const links = fs.existsSync(listFile) ? JSON.parse(fs.readFileSync(listFile, "utf8")) : [];
  for (const { source, target } of links) {
    // paths in the file are relative to the package root: target is the link, source what it points to
    const linkPath = path.join(pkg, target);
    const rel = path.relative(path.dirname(linkPath), path.join(pkg, source));
    try {
      fs.symlinkSync(rel, linkPath);
    } catch (e) {
      if (e.code !== "EEXIST") throw e;
    }
  }
});

step("prisma generate", () => {
  // `generate` never runs the schema engine, but the CLI insists on having one; any file will do.
  const stub = path.join(root, "scripts", "schema-engine", "schema-engine");
  execFileSync(process.execPath, [require.resolve("prisma/build/index.js"), "generate"], {
    stdio: "inherit",
    env: {
      ...process.env,
      PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? (fs.existsSync(stub) ? stub : process.execPath),
      PRISMA_HIDE_UPDATE_MESSAGE: "1",
    },
  });
});

if (process.env.LINKHOP_SKIP_BUILD === "1") {
  console.log("[postinstall] LINKHOP_SKIP_BUILD=1: not building the app");
} else {
  step("build", () => {
    execFileSync(process.execPath, [path.join(root, "scripts", "build.mjs")], { stdio: "inherit" });
  });
}
