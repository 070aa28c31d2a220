// `npm test`: type check, unit, integration (real PostgreSQL, real HTTP), then Playwright (Debian
// chromium). Every stage runs even when an earlier one fails; the exit code is non-zero if any did.
import { spawnSync } from "node:child_process";
import fs from "node:fs";

const stages = [
  ["typecheck", ["npx", "tsc", "--noEmit", "-p", "tsconfig.json"]],
  ["unit", ["npx", "vitest", "run", "--project", "unit"]],
  ["integration", ["npx", "vitest", "run", "--project", "integration"]],
  ["e2e", ["npx", "playwright", "test"]],
];
const only = process.argv.slice(2);
const results = [];
for (const [name, cmd] of stages) {
  if (only.length && !only.includes(name)) continue;
  if (name === "e2e" && !fs.existsSync("/usr/bin/chromium")) {
    console.error("[test] /usr/bin/chromium is missing: apt-get install -y chromium fonts-liberation (see .ci/run)");
    results.push([name, 1, 0]);
    continue;
  }
  const t = Date.now();
  console.log(`\n[test] ${name}: ${cmd.join(" ")}`);
  const r = spawnSync(cmd[0], cmd.slice(1), { stdio: "inherit", env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" } });
  results.push([name, r.status ?? 1, (Date.now() - t) / 1000]);
}
console.log("\n[test] summary");
for (const [name, status, secs] of results) console.log(`  ${status === 0 ? "ok  " : "FAIL"} ${name} (${secs.toFixed(0)} s)`);
const failed = results.filter(([, s]) => s !== 0).length;
console.log(`${results.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
