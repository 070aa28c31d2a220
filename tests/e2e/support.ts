// Helpers for the Playwright specs: sign-up, screenshots kept as artifacts, the admin CLI against
// the e2e app's database, and what the loopback SMTP/DNS servers (tests/e2e/services.ts) caught.
import AxeBuilder from "@axe-core/playwright";
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { expect, type Page, type TestInfo } from "@playwright/test";
import { adminCli, nodeFlags } from "../support/compiled.ts";
import { createTestCa } from "../support/https-receiver.ts";
import type { ServicesFile } from "./services.ts";

// set by playwright.config.ts (a free port unless given)
export const port = Number(process.env.E2E_PORT);
if (!port) throw new Error("E2E_PORT is unset: run the specs through playwright.config.ts");
export const appUrl = `http://localhost:${port}`;
export const dataDir = path.resolve(`test-results/e2e-data-${port}`);
const root = path.resolve(import.meta.dirname, "../..");

export function uniqueEmail(prefix = "user"): string {
  return `${prefix}-${randomBytes(4).toString("hex")}@example.test`;
}

export const PASSWORD = "correct horse battery";

/** Signs up a new user through the form; returns the email and the workspace slug it lands in. */
export async function signUp(page: Page, opts: { email?: string; name?: string } = {}): Promise<{ email: string; slug: string }> {
  const email = opts.email ?? uniqueEmail();
  await page.goto("/signup");
  if (opts.name) await page.getByLabel("Name (optional)").fill(opts.name);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create account" }).click();
  await page.waitForURL(/\/w\/[^/]+$/);
  const slug = new URL(page.url()).pathname.split("/")[2];
  return { email, slug };
}

/** A full-page screenshot saved in the test's output folder and attached to the report. */
export async function shot(page: Page, testInfo: TestInfo, name: string) {
  await page.waitForLoadState("networkidle", { timeout: 5_000 }).catch(() => {});
  const file = testInfo.outputPath(`${name}.png`);
  // The whole page: the viewport is stretched to the page's height for the shot (a fullPage
  // screenshot would leave the sticky, screen-high sidebar at its scrolled position).
  const size = page.viewportSize() ?? { width: 1280, height: 720 };
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  if (height > size.height) await page.setViewportSize({ width: size.width, height: Math.min(height, 6000) });
  await page.screenshot({ path: file });
  if (height > size.height) await page.setViewportSize(size);
  await testInfo.attach(name, { path: file, contentType: "image/png" });
}

/** Runs `npm run admin -- <command>` against the e2e app's embedded database; returns its JSON. */
export async function admin(command: string, flags: Record<string, string>): Promise<Record<string, unknown>> {
  const args = [...nodeFlags, adminCli, command, ...Object.entries(flags).flatMap(([k, v]) => [`--${k}`, v])];
  // The same settings as the e2e server (tests/e2e/serve.ts), so the CLI accepts what the app does.
  const env: NodeJS.ProcessEnv = { ...process.env, LINKHOP_DATA_DIR: dataDir, APP_URL: appUrl, WEBHOOK_ALLOW_PRIVATE: "1" };
  delete env.DATABASE_URL; // the CLI reuses the embedded PostgreSQL the e2e server started
  const { stdout, code } = await new Promise<{ stdout: string; code: number }>((resolve) => {
    const child = execFile(
      process.execPath,
      args,
      {
        cwd: root,
        env,
      },
      (err, out) => resolve({ stdout: out, code: err ? ((err as { code?: number }).code ?? 1) : 0 }),
    );
    child.stdin?.end();
  });
  const last = stdout.trim().split("\n").pop() ?? "{}";
  const result = JSON.parse(last) as Record<string, unknown>;
  if (code !== 0) throw new Error(`admin ${command} failed: ${last}`);
  return result;
}

function services(): ServicesFile {
  return JSON.parse(fs.readFileSync(path.join(dataDir, "services.json"), "utf8")) as ServicesFile;
}

export type CaughtMail = { to: string[]; from: string; subject: string; text: string; html: string | null };

export async function caughtMail(): Promise<CaughtMail[]> {
  const res = await fetch(`http://127.0.0.1:${services().control}/mail`);
  return (await res.json()) as CaughtMail[];
}

/** Waits for a message to `to` received by the loopback SMTP server. */
export async function waitForMail(to: string, timeoutMs = 15_000, subject?: string): Promise<CaughtMail> {
  let found: CaughtMail | undefined;
  await expect
    .poll(
      async () => {
        found = (await caughtMail()).find(
          (m) => m.to.some((t) => t.toLowerCase().includes(to.toLowerCase())) && (subject === undefined || m.subject === subject),
        );
        return !!found;
      },
      { timeout: timeoutMs, message: `mail to ${to}` },
    )
    .toBe(true);
  return found!;
}

/** Serves a record from the loopback DNS server the app resolves with (DNS_SERVERS). */
export async function setDnsRecord(name: string, type: "TXT" | "A" | "CNAME", values: string[]) {
  const res = await fetch(`http://127.0.0.1:${services().control}/dns`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name, type, values }),
  });
  if (!res.ok) throw new Error(`dns set failed: ${res.status} ${await res.text()}`);
}

/** The run's certificate authority, which the e2e server trusts (made by playwright.config.ts). */
export function testCa() {
  const dir = process.env.E2E_CA_DIR;
  if (!dir) throw new Error("E2E_CA_DIR is unset: run the specs through playwright.config.ts");
  return createTestCa(dir);
}

/**
 * The critical and serious axe violations of the page as it is now, one line each (prefixed with
 * `label` when given): every spec's accessibility check (0 of them is the bar). Only violations
 * are collected: axe then skips the many passing nodes.
 */
export async function seriousViolations(page: Page, label?: string): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"])
    .options({ resultTypes: ["violations"] })
    .analyze();
  return violations
    .filter((v) => v.impact === "critical" || v.impact === "serious")
    .map((v) => `${label ? `${label}: ` : ""}${v.id} (${v.impact}) at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}: ${v.help}`);
}

/**
 * An analytics panel's table (its aria-label is the panel's title), its tab chosen first when the
 * panel sits in a card of tabs (components/analytics/panel-tabs.tsx).
 */
export async function analyticsPanel(page: Page, name: string) {
  // the panels stream in after the totals
  await page.locator("[data-panels-range]").first().waitFor();
  const tab = page.getByRole("tab", { name, exact: true });
  if ((await tab.count()) > 0 && (await tab.getAttribute("aria-selected")) !== "true") await tab.click();
  return page.getByRole("table", { name, exact: true });
}
