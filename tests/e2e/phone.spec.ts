import { expect, test } from "@playwright/test";
import { admin, shot, signUp } from "./support.ts";

// Every page of the workspace app at phone width (390 px): nothing wider than the screen, the
// navigation reachable, a screenshot of each kept.

test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

test("the workspace pages fit a phone screen", async ({ page }, testInfo) => {
  const { slug } = await signUp(page);
  await admin("workspace:plan", { slug, plan: "team" });
  await page.goto(`/w/${slug}/links/new`);
  await page.getByLabel("Destination URL").fill("https://example.com/a/rather/long/path/that/needs/to/wrap/somewhere?with=query&and=more");
  await page.getByLabel("Title", { exact: true }).fill("A link on a phone");
  await page.getByLabel("Folder").fill("phone/tests");
  await page.getByRole("button", { name: "Create link" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toContainText("/");
  const linkPath = new URL(page.url()).pathname;

  const pages: [string, string][] = [
    ["overview", `/w/${slug}`],
    ["links", `/w/${slug}/links`],
    ["link-new", `/w/${slug}/links/new`],
    ["link-detail", linkPath],
    ["link-edit", `${linkPath}/edit`],
    ["import", `/w/${slug}/links/import`],
    ["domains", `/w/${slug}/domains`],
    ["members", `/w/${slug}/members`],
    ["usage", `/w/${slug}/settings/usage`],
  ];
  for (const [name, path] of pages) {
    await page.goto(path);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, `${name} is wider than the screen by ${overflow}px`).toBeLessThanOrEqual(0);
    await shot(page, testInfo, `phone-${name}`);
  }
  // The workspace navigation is there on a phone too, behind Menu.
  await page.getByRole("button", { name: "Menu" }).tap();
  await expect(page.getByRole("navigation", { name: "Workspace" }).getByRole("link", { name: "Links" })).toBeVisible();
});
