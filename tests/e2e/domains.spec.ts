import { expect, test } from "@playwright/test";
import { admin, appUrl, setDnsRecord, shot, signUp } from "./support.ts";

// A custom domain verified against a real DNS server on loopback (the app's DNS_SERVERS) that
// serves the TXT record shown on the page.

test.use({ permissions: ["clipboard-read", "clipboard-write"] });

test("add a custom domain, verify it through DNS, use it for a link, remove one", async ({ page }, testInfo) => {
  const { slug } = await signUp(page);
  await page.getByRole("navigation", { name: "Workspace" }).getByRole("link", { name: "Domains" }).click();
  await expect(page.getByText("Custom domains are not included in the Free plan")).toBeVisible();
  await expect(page.getByRole("button", { name: "Add domain" })).toBeDisabled();
  await shot(page, testInfo, "domains-free-plan");

  await admin("workspace:plan", { slug, plan: "pro" });
  await page.reload();
  await expect(page.getByText("No custom domains yet")).toBeVisible();
  const host = `go-${Date.now().toString(36)}.example.test`;

  await page.getByRole("button", { name: "Add domain" }).click();
  const dialog = page.getByRole("dialog", { name: "Add a custom domain" });
  await expect(dialog.getByLabel("Host")).toBeFocused();
  await dialog.getByLabel("Host").fill("https://example.test/path");
  await dialog.getByRole("button", { name: "Add domain" }).click();
  await expect(dialog.getByText("Enter only the host name, without https:// or a path.")).toBeVisible();
  await shot(page, testInfo, "domains-add-invalid");
  await dialog.getByLabel("Host").fill(host.toUpperCase());
  await dialog.getByLabel("Host").press("Enter");
  await expect(dialog).toBeHidden();
  await expect(page.getByRole("status").filter({ hasText: `${host} added` })).toBeVisible();

  const card = page.locator("section").filter({ has: page.getByRole("heading", { name: host }) });
  await expect(card.getByText("Pending")).toBeVisible();
  const txtName = (await card.locator("code").nth(0).textContent())!;
  const txtValue = (await card.locator("code").nth(1).textContent())!;
  expect(txtName).toBe(`_linkhop.${host}`);
  expect(txtValue).toMatch(/^linkhop-verify=[0-9a-f]{32}$/);
  await expect(card.locator("code").nth(3)).toHaveText("localhost");
  await card.getByRole("button", { name: "Copy txt value" }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(txtValue);
  await shot(page, testInfo, "domains-pending");

  // Before the record exists, Verify explains what is missing.
  await card.getByRole("button", { name: "Verify" }).click();
  await expect(card.getByRole("alert")).toContainText(`No TXT record found at ${txtName}`);
  // A wrong value is reported too.
  await setDnsRecord(txtName, "TXT", ["linkhop-verify=someone-else"]);
  await card.getByRole("button", { name: "Verify" }).click();
  await expect(card.getByRole("alert")).toContainText(`does not contain ${txtValue}`);
  await shot(page, testInfo, "domains-verify-failed");

  await setDnsRecord(txtName, "TXT", ["v=spf1 -all", txtValue]);
  await card.getByRole("button", { name: "Verify" }).click();
  await expect(page.getByRole("status").filter({ hasText: `${host} is verified` })).toBeVisible();
  await expect(card.getByText("Verified", { exact: true })).toBeVisible();
  await shot(page, testInfo, "domains-verified");

  // New links can live on it.
  await page.goto(`/w/${slug}/links/new`);
  await page.getByLabel("Destination URL").fill("https://example.com/custom-domain");
  await page.getByLabel("Domain").selectOption(host);
  await page.getByLabel("Short code (alias)").fill("hello");
  await page.getByRole("button", { name: "Create link" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`${host}/hello`);
  const res = await page.request.get(`${appUrl}/hello`, { headers: { host }, maxRedirects: 0 });
  expect(res.status()).toBe(302);
  expect(res.headers()["location"]).toBe("https://example.com/custom-domain");

  // Removing is refused while links use the domain; an unused one goes.
  await page.goto(`/w/${slug}/domains`);
  await card.getByRole("button", { name: `Remove ${host}` }).click();
  await expect(page.getByRole("dialog")).toContainText("1 link live on this domain");
  await page.getByRole("dialog").getByRole("button", { name: "Remove domain" }).click();
  await expect(page.getByRole("dialog").getByRole("alert")).toContainText("1 link still uses");
  await page.keyboard.press("Escape");

  const spare = `spare-${Date.now().toString(36)}.example.test`;
  const added = await admin("domain:add", { slug, host: spare });
  expect(added).toMatchObject({ host: spare, txtName: `_linkhop.${spare}` });
  await page.reload();
  await page.getByRole("button", { name: `Remove ${spare}` }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Remove domain" }).click();
  await expect(page.getByRole("status").filter({ hasText: `${spare} removed` })).toBeVisible();
  await expect(page.getByRole("heading", { name: spare })).toHaveCount(0);
});
