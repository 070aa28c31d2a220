// Playwright's web server: the real app on a fresh embedded PostgreSQL under test-results/,
// with loopback SMTP and DNS servers whose catches the tests read through tests/e2e/support.
import { fork } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { nodeFlags, serverEntry } from "../support/compiled.ts";

const port = process.env.E2E_PORT;
if (!port) throw new Error("E2E_PORT is unset: start the e2e server through playwright.config.ts");
const dataDir = path.resolve(`test-results/e2e-data-${port}`);
fs.rmSync(dataDir, { recursive: true, force: true });
// Each run has its own port, so earlier runs' data and CA stay behind: remove the ones whose
// PostgreSQL has stopped (no postmaster.pid); one still running belongs to a live run.
for (const name of fs.existsSync("test-results") ? fs.readdirSync("test-results") : []) {
  const dir = path.resolve("test-results", name);
  if (name === `e2e-ca-${port}`) continue;
  const stoppedRun = name.startsWith("e2e-data-") && !fs.existsSync(path.join(dir, "pg", "postmaster.pid"));
  const otherRunsCa =
    name.startsWith("e2e-ca-") && !fs.existsSync(path.resolve("test-results", `e2e-data-${name.slice(7)}`, "pg", "postmaster.pid"));
  if (stoppedRun || otherRunsCa) {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
fs.mkdirSync(dataDir, { recursive: true });

process.env.LINKHOP_DATA_DIR = dataDir;
process.env.PORT = port;
process.env.APP_URL = `http://localhost:${port}`;
process.env.AUTH_SECRET ??= "e2e-secret-e2e-secret-e2e-secret";
process.env.WEBHOOK_ALLOW_PRIVATE = "1";
process.env.WEBHOOK_RETRY_DELAYS ??= "1s,1s,1s,1s,1s,1s";
// Every spec signs up fresh accounts from this one machine; the per-address sign-up limit itself
// is tested over HTTP in tests/integration/security-auth-throttle.test.ts.
process.env.SIGNUP_LIMIT_PER_HOUR ??= "1000";
// Likewise failed sign-ins per client across accounts (tests/integration/security-auth-guessing.test.ts).
process.env.SIGNIN_FAILURES_PER_CLIENT ??= "1000";
delete process.env.DATABASE_URL;

const { startE2eServices } = await import("./services.ts");
await startE2eServices(dataDir);
// The app as `npm start` runs it (dist/server.js), in a process of its own: this one keeps the
// loopback services. Playwright stops the web server with SIGTERM to the process group, so the app
// gets it too (passed on as well, for a signal sent to this process alone); this process stays until
// the app has stopped its embedded PostgreSQL, and leaves with the app's exit code.
const app = fork(serverEntry, [], { execArgv: nodeFlags, stdio: "inherit" });
for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => app.kill(signal));
app.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
