import { defineConfig } from "@playwright/test";

const port = Number(process.env.E2E_PORT ?? 3217);

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
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"],
    },
  },
  webServer: {
    // A fresh embedded database, SMTP and DNS servers on loopback, then the real server.
    command: `node --import tsx tests/e2e/serve.ts`,
    url: `http://localhost:${port}/login`,
    timeout: 120_000,
    reuseExistingServer: false,
    // SIGTERM lets server.ts stop its embedded PostgreSQL (a SIGKILL would leave it running).
    gracefulShutdown: { signal: "SIGTERM", timeout: 15_000 },
    stdout: "pipe",
    env: { E2E_PORT: String(port) },
  },
});
