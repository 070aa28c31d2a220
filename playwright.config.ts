import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { defineConfig } from "@playwright/test";
import { chromiumPath } from "./scripts/chromium.mjs";
import { createTestCa } from "./tests/support/https-receiver.ts";

// The app listens on E2E_PORT when given, else on a port free right now, so a killed run that
// left a server behind cannot block the next one. The choice is put in the environment: the
// worker processes load this file again and inherit it, and so do the specs (tests/e2e/support.ts).
if (!process.env.E2E_PORT) {
  const script =
    "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{process.stdout.write(String(s.address().port));s.close()})";
  process.env.E2E_PORT = execFileSync(process.execPath, ["-e", script], { encoding: "utf8" }).trim();
}
const port = Number(process.env.E2E_PORT);
// A throwaway certificate authority the e2e server trusts (NODE_EXTRA_CA_CERTS is read only when a
// process starts) and the specs issue receiver certificates from (tests/e2e/support.ts), made once
// per run like the port.
if (!process.env.E2E_CA_DIR) {
  const dir = path.resolve(`test-results/e2e-ca-${port}`);
  fs.rmSync(dir, { recursive: true, force: true });
  process.env.E2E_CA_DIR = createTestCa(dir).dir;
}
const caDir = process.env.E2E_CA_DIR;

export default defineConfig({
  testDir: "tests/e2e",
  timeout: 60_000,
  workers: 1,
  retries: 0,
  reporter: [["list"]],
  outputDir: "test-results/e2e",
  use: {
    baseURL: `http://localhost:${port}`,
    screenshot: "only-on-failure",
    trace: "retain-on-failure",
    launchOptions: {
      // scripts/test.mjs reports a missing Chromium before Playwright starts
      executablePath: chromiumPath() ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
      ],
    },
  },
  webServer: {
    // A fresh embedded database, SMTP and DNS servers on loopback, then the real server (dist/server.js, its own process).
    command: `node --import tsx tests/e2e/serve.ts`,
    url: `http://localhost:${port}/login`,
    timeout: 120_000,
    reuseExistingServer: false,
    // SIGTERM lets the app stop its embedded PostgreSQL (a SIGKILL would leave it running).
    gracefulShutdown: { signal: "SIGTERM", timeout: 15_000 },
    stdout: "pipe",
    env: { E2E_PORT: String(port), NODE_EXTRA_CA_CERTS: path.join(caDir, "ca.crt") },
  },
});
