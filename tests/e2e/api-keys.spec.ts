import { expect, test } from "@playwright/test";
import { appUrl, shot, signUp } from "./support.ts";

// Create an API key in the app, use it, revoke it, and see it stop working. The link made through
// the API shows up in the app and counts on the Plan and usage page: one service behind both.

test("create and revoke an API key; the key stops working", async ({ page }, testInfo) => {
  const { slug } = await signUp(page);
  await page.getByRole("navigation", { name: "Workspace" }).getByRole("link", { name: "Settings" }).click();
  await expect(page.getByRole("heading", { name: "Settings" })).toBeVisible();
  await shot(page, testInfo, "settings");
  await page.getByRole("link", { name: /API keys/ }).click();
  await expect(page.getByRole("heading", { name: "API keys" })).toBeVisible();
  await expect(page.getByText("No API keys yet")).toBeVisible();
  await shot(page, testInfo, "api-keys-empty");

  await page.getByLabel("Name").fill("E2E script");
  await page.getByRole("button", { name: "Create key" }).click();
  const box = page.getByTestId("new-api-key");
  await expect(box).toBeVisible();
  const key = (await box.locator("code").textContent())!.trim();
  expect(key).toMatch(/^lh_[0-9A-Za-z]{40}$/);
  await shot(page, testInfo, "api-keys-created");

  const api = (method: string, path: string, body?: unknown) =>
    page.request.fetch(`${appUrl}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      data: body === undefined ? undefined : JSON.stringify(body),
    });
  const created = await api("POST", "/links", { url: "https://example.com/from-the-api", title: "Made with the API" });
  expect(created.status()).toBe(201);
  const link = await created.json();
  expect((await api("GET", `/links/${link.code}`)).status()).toBe(200);

  // The app shows what the API made, and counts it against the plan.
  await page.goto(`/w/${slug}/links`);
  await expect(page.getByRole("list", { name: "Links" }).getByText("Made with the API")).toBeVisible();
  await page.goto(`/w/${slug}/settings/usage`);
  await expect(page.getByRole("heading", { name: "Plan and usage" })).toBeVisible();
  await expect(page.getByRole("progressbar", { name: "Links created this month" })).toHaveAttribute("aria-valuenow", "1");
  await expect(page.getByRole("progressbar", { name: "Live API keys" })).toHaveAttribute("aria-valuenow", "1");
  await shot(page, testInfo, "usage");

  await page.goto(`/w/${slug}/settings/api-keys`);
  await expect(page.getByRole("cell", { name: "E2E script" })).toBeVisible();
  await page.getByRole("button", { name: "Revoke" }).click();
  const dialog = page.getByRole("dialog", { name: "Revoke this API key?" });
  await expect(dialog).toBeVisible();
  await dialog.getByRole("button", { name: "Revoke key" }).click();
  await expect(page.getByRole("status").filter({ hasText: "API key revoked" })).toBeVisible();
  await expect(page.getByText("revoked", { exact: true })).toBeVisible();
  await shot(page, testInfo, "api-keys-revoked");

  const refused = await api("GET", `/links/${link.code}`);
  expect(refused.status()).toBe(401);
  expect(await refused.json()).toEqual({ error: "unauthorized" });
  expect((await api("POST", "/links", { url: "https://example.com/after" })).status()).toBe(401);
});
