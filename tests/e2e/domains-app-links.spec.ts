import { expect, test } from "@playwright/test";
import { admin, appUrl, setDnsRecord, shot, signUp } from "./support.ts";

// A verified domain's root URL and apple-app-site-association edited on the Domains page (the
// server action over the same service as PATCH /api/v1/domains/{host}), then served on the domain.

test("edit a domain's root URL and apple-app-site-association, served on the domain", async ({ page }, testInfo) => {
  const { slug } = await signUp(page);
  await admin("workspace:plan", { slug, plan: "pro" });
  const host = `app-${Date.now().toString(36)}.example.test`;
  const added = await admin("domain:add", { slug, host });
  await setDnsRecord(String(added.txtName), "TXT", [String(added.txtValue)]);
  // Verified on the page: the app resolves through the test's DNS server (the CLI here does not).
  await page.goto(`/w/${slug}/domains`);
  const card = page.locator("section").filter({ has: page.getByRole("heading", { name: host }) });
  await card.getByRole("button", { name: "Verify" }).click();
  await expect(card.getByText("Verified", { exact: true })).toBeVisible();
  await expect(card.getByTestId("domain-root-url")).toHaveText("not set: the 404 page");
  await card.getByRole("button", { name: `Edit app links and redirects of ${host}` }).click();
  const dialog = page.getByRole("dialog", { name: `App links and redirects of ${host}` });
  await dialog.getByLabel("Root URL").fill("example.com/home");
  await dialog.getByLabel("apple-app-site-association (JSON object)").fill('{"applinks": ');
  await dialog.getByRole("button", { name: "Save" }).click();
  await expect(dialog.getByText("must be valid JSON")).toBeVisible();
  await shot(page, testInfo, "domains-app-links-invalid");

  const aasa = { applinks: { details: [{ appIDs: ["ABCDE12345.com.example.app"], components: [{ "/": "/*" }] }] } };
  await dialog.getByLabel("apple-app-site-association (JSON object)").fill(JSON.stringify(aasa));
  await dialog.getByRole("button", { name: "Save" }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole("status").filter({ hasText: `Saved the settings of ${host}` })).toBeVisible();
  await expect(card.getByTestId("domain-root-url")).toHaveText("https://example.com/home");
  await expect(card.getByTestId("domain-aasa")).toHaveText("set");
  await shot(page, testInfo, "domains-app-links-saved");

  // Served on the domain once the change notification reached the redirect path.
  await expect
    .poll(async () => (await page.request.get(`${appUrl}/`, { headers: { host }, maxRedirects: 0 })).headers()["location"])
    .toBe("https://example.com/home");
  const file = await page.request.get(`${appUrl}/.well-known/apple-app-site-association`, { headers: { host } });
  expect(file.status()).toBe(200);
  expect(file.headers()["content-type"]).toBe("application/json");
  expect(await file.json()).toEqual(aasa);
});
