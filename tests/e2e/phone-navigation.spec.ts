import { expect, test, type Locator } from "@playwright/test";
import { admin, signUp } from "./support.ts";

// At 390x844 (a phone): the navigation folds behind Menu; opened, every item of it is on screen
// without scrolling sideways, the links search box has a usable width, and the API-keys table keeps Revoke on screen.

test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

async function onScreen(locator: Locator) {
  const box = (await locator.boundingBox())!;
  expect(box.x, `${await locator.textContent()} starts off screen`).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width, `${await locator.textContent()} ends off screen`).toBeLessThanOrEqual(390);
}

test("phone: every navigation item is reachable without horizontal scrolling; search and API keys fit", async ({ page }) => {
  const { slug } = await signUp(page);
  const nav = page.getByRole("navigation", { name: "Workspace" });
  await expect(nav).toBeHidden();
  await page.getByRole("button", { name: "Menu" }).tap();
  const items = nav.getByRole("link");
  await expect(items).toHaveCount(7);
  for (const name of ["Overview", "Links", "Analytics", "Domains", "Members", "Developers", "Settings"]) {
    const item = nav.getByRole("link", { name });
    await expect(item).toBeVisible();
    await onScreen(item);
  }
  expect(await nav.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);
  await nav.getByRole("link", { name: "Settings" }).tap();
  await expect(page.getByRole("heading", { name: "Settings", level: 1 })).toBeVisible();

  await admin("workspace:plan", { slug, plan: "pro" }); // three live keys
  await admin("key:create", { slug, name: "A key with a rather long descriptive name" });
  await admin("key:create", { slug, name: "CI" });
  await page.goto(`/w/${slug}/settings/api-keys`);
  const revoke = page.getByRole("button", { name: "Revoke", exact: true });
  await expect(revoke).toHaveCount(2);
  for (const button of await revoke.all()) await onScreen(button);
  expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);

  const { key } = (await admin("key:create", { slug, name: "Search test" })) as { key: string };
  await page.request.post("/api/v1/links", { headers: { Authorization: `Bearer ${key}` }, data: { url: "https://example.com/a" } });
  await page.goto(`/w/${slug}/links`);
  const search = page.getByRole("searchbox", { name: "Search links" });
  expect((await search.boundingBox())!.width).toBeGreaterThan(300);
});
