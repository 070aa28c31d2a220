// `npm test`: type check, unit, integration (real PostgreSQL, real HTTP), Playwright (Debian
// chromium), then the container image (built and run with podman; skipped with one line where
// podman is not installed: .ci/run installs it). Stops at the first failing stage (`--keep-going` runs the rest anyway). Each stage
// has a time limit; a stage that passes it is stopped and fails with a message, so a hang cannot
// block CI. Integration and e2e start the built app: when a source is newer than .next/BUILD_ID or
// dist/ the app is rebuilt first (`--no-build` fails instead, naming the command).
//
//   npm test                         all stages
//   npm test -- unit integration     only these stages
//   npm test -- --keep-going         run every stage even after a failure
//   LINKHOP_TEST_TIMEOUT_E2E=1200    a stage's limit in seconds (TYPECHECK, UNIT, BUILD, INTEGRATION, E2E, CONTAINER)
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromiumPath } from "./chromium.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
process.chdir(root);

// Seconds. About three times what each stage takes on a loaded 2-core machine.
const LIMITS = { typecheck: 300, unit: 300, build: 600, integration: 1200, e2e: 900, container: 1500 };
const STAGES = [
  // Types, formatting (`npm run format` fixes what `prettier --check` reports), then the import
  // layering (.dependency-cruiser.cjs; `npm run check:layers` runs it alone).
  [
    "typecheck",
    ["sh", "-c", "npx tsc --noEmit -p tsconfig.json && npx prettier --check --log-level warn . && npm run --silent check:layers"],
  ],
  ["unit", ["npx", "vitest", "run", "--project", "unit"]],
  ["integration", ["npx", "vitest", "run", "--project", "integration"]],
  ["e2e", ["npx", "playwright", "test"]],
  // Builds the Dockerfile from a locally made base and runs the image (tests/container/image.test.ts).
  ["container", [process.execPath, "--import", "tsx", "--test", "--test-reporter", "spec", "tests/container/image.test.ts"]],
];
// What the build is made of (the Next app, and server.ts with the lib/ modules compiled into
// dist/): anything newer than .next/BUILD_ID or dist/inputs.json makes the build stale.
const BUILD_INPUTS = [
  "server.ts",
  "app",
  "components",
  "lib",
  "inngest",
  "next.config.ts",
  "postcss.config.mjs",
  "tsconfig.json",
  "package.json",
  "package-lock.json",
];

const args = process.argv.slice(2);
const keepGoing = args.includes("--keep-going");
const noBuild = args.includes("--no-build");
const unknownFlags = args.filter((a) => a.startsWith("--") && a !== "--keep-going" && a !== "--no-build");
const only = args.filter((a) => !a.startsWith("--"));
const unknownStages = only.filter((n) => !STAGES.some(([name]) => name === n));
if (unknownFlags.length || unknownStages.length) {
  console.error(
    `[test] unknown ${[...unknownFlags, ...unknownStages].join(", ")}; stages: ${STAGES.map(([n]) => n).join(", ")}; flags: --keep-going, --no-build`,
  );
  process.exit(2);
}

function limitFor(name) {
  const raw = process.env[`LINKHOP_TEST_TIMEOUT_${name.toUpperCase()}`];
  const secs = raw ? Number(raw) : LIMITS[name];
  if (!(secs > 0)) throw new Error(`LINKHOP_TEST_TIMEOUT_${name.toUpperCase()} must be a number of seconds`);
  return secs;
}

function newestMtime(p) {
  let st;
  try {
    st = fs.statSync(p);
  } catch {
    return 0;
  }
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = 0;
  for (const entry of fs.readdirSync(p)) newest = Math.max(newest, newestMtime(path.join(p, entry)));
  return newest;
}

/** null when .next and dist/ hold a build of the current sources, else why they do not. */
function staleBuild() {
  const distDir = process.env.NEXT_DIST_DIR || ".next";
  const stamps = [path.join(distDir, "BUILD_ID"), path.join("dist", "inputs.json")];
  const missing = stamps.find((file) => !fs.existsSync(file));
  if (missing) return `no build in ${path.dirname(missing)}/`;
  const built = Math.min(...stamps.map((file) => fs.statSync(file).mtimeMs));
  const newer = BUILD_INPUTS.filter((p) => newestMtime(p) > built);
  return newer.length ? `${newer.join(", ")} changed after the build in ${distDir}/ and dist/` : null;
}

/** Runs cmd in its own process group; resolves its exit status, or "timeout" after the limit. */
function run(name, cmd) {
  const limit = limitFor(name);
  return new Promise((resolve) => {
    const child = spawn(cmd[0], cmd.slice(1), {
      stdio: "inherit",
      detached: true, // own process group: on timeout the whole tree (workers, app servers) is stopped
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
    });
    let timedOut = false;
    let killer;
    const timer = setTimeout(() => {
      timedOut = true;
      console.error(
        `\n[test] ${name} did not finish within ${limit} s: stopping it (LINKHOP_TEST_TIMEOUT_${name.toUpperCase()} sets the limit)`,
      );
      const signal = (sig) => {
        try {
          process.kill(-child.pid, sig);
        } catch {
          // already gone
        }
      };
      signal("SIGTERM"); // lets the runners stop the servers and databases they started
      killer = setTimeout(() => signal("SIGKILL"), 30_000);
    }, limit * 1000);
    const stopOnSignal = (sig) => {
      try {
        process.kill(-child.pid, sig);
      } catch {
        // already gone
      }
    };
    process.once("SIGINT", stopOnSignal);
    process.once("SIGTERM", stopOnSignal);
    child.on("exit", (code, sig) => {
      clearTimeout(timer);
      clearTimeout(killer);
      process.off("SIGINT", stopOnSignal);
      process.off("SIGTERM", stopOnSignal);
      resolve(timedOut ? "timeout" : (code ?? (sig ? `signal ${sig}` : 1)));
    });
    child.on("error", (e) => {
      clearTimeout(timer);
      console.error(`[test] ${name}: ${e.message}`);
      resolve(1);
    });
  });
}

const wanted = STAGES.filter(([name]) => !only.length || only.includes(name));
const plan = [];
for (const stage of wanted) {
  if ((stage[0] === "integration" || stage[0] === "e2e") && !plan.some(([n]) => n === "build")) {
    plan.push(["build", [process.execPath, "scripts/build.mjs"]]);
  }
  plan.push(stage);
}

/**
 * The ClickHouse tests' own package (tests/clickhouse: chdb, about 540 MB, kept out of the app's
 * install), installed from its lockfile on first use. A failed install is reported and the tests
 * skip with one line each (tests/clickhouse/embedded.ts); .ci/run installs it up front.
 */
function ensureClickHouseTestPackage() {
  if (fs.existsSync(path.join("tests", "clickhouse", "node_modules", "chdb", "package.json"))) return;
  // `npm install`, not `npm ci`: the lockfile lists only this platform's build of chdb (see .ci/run)
  console.log("\n[test] installing tests/clickhouse (chdb, first use): npm install --prefix tests/clickhouse");
  const r = spawnSync("npm", ["install", "--prefix", "tests/clickhouse", "--no-audit", "--no-fund"], { stdio: "inherit" });
  if (r.status !== 0) console.error("[test] tests/clickhouse could not be installed: the ClickHouse tests will skip");
}

const results = [];
for (const [name, cmd] of plan) {
  if (name === "integration") ensureClickHouseTestPackage();
  const t = Date.now();
  let status;
  if (name === "build") {
    const why = staleBuild();
    if (!why) continue;
    if (noBuild) {
      console.error(`[test] ${why}: run \`npm run build\` first (or drop --no-build)`);
      status = 1;
    } else {
      console.log(`\n[test] build: ${why}; rebuilding: npm run build`);
      status = await run(name, cmd);
    }
  } else if ((name === "integration" || name === "e2e") && results.some(([n, st]) => n === "build" && st !== 0)) {
    console.error(`[test] ${name}: not run, the build failed (it would test an old build)`);
    status = 1;
  } else if (name === "container" && spawnSync("sh", ["-c", "command -v podman"], { stdio: "ignore" }).status !== 0) {
    console.log("\n[test] container: skipped, podman is not installed (.ci/run installs it: apt-get install -y podman runc debootstrap)");
    status = "skipped";
  } else if (name === "e2e" && !chromiumPath()) {
    console.error(
      "[test] no Chromium: set CHROMIUM_PATH, or put `chromium` on PATH (apt-get install -y chromium fonts-liberation; see .ci/run)",
    );
    status = 1;
  } else {
    console.log(`\n[test] ${name}: ${cmd.join(" ")}`);
    status = await run(name, cmd);
  }
  results.push([name, status, (Date.now() - t) / 1000]);
  if (status !== 0 && status !== "skipped" && !keepGoing) {
    const rest = plan
      .slice(plan.findIndex(([n]) => n === name) + 1)
      .map(([n]) => n)
      .filter((n) => n !== "build");
    if (rest.length) console.error(`[test] ${name} failed: not running ${rest.join(", ")} (--keep-going runs them anyway)`);
    break;
  }
}

console.log("\n[test] summary");
for (const [name, status, secs] of results) {
  const what = status === 0 ? "ok  " : status === "skipped" ? "skip" : status === "timeout" ? "TIME" : "FAIL";
  console.log(`  ${what} ${name} (${secs.toFixed(0)} s)`);
}
const skipped = results.filter(([, s]) => s === "skipped").length;
const failed = results.filter(([, s]) => s !== 0 && s !== "skipped").length;
console.log(`${results.length - failed - skipped} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(failed ? 1 : 0);
