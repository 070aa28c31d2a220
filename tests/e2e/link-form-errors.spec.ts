import { expect, test } from "@playwright/test";
import { admin, shot, signUp } from "./support.ts";

// The link form says what is wrong where it is wrong: the first bad field is scrolled to, focused
// and marked (aria-invalid, a red border, a message beside it tied by aria-describedby), in plain
// words; an address typed without https:// gets it; an expiry in the past is refused.

test("a bad destination is focused and marked with a plain message; example.com/x gets https://", async ({ page }, testInfo) => {
  const { slug } = await signUp(page);
  await page.goto(`/w/${slug}/links/new`);
  const url = page.getByLabel("Destination URL");
  await url.fill("not a web address");
  await page.getByLabel("Title", { exact: true }).fill("Spring");
  // submitted from the bottom of the long form, scrolled down
  const create = page.getByRole("button", { name: "Create link" });
  await create.scrollIntoViewIfNeeded();
  await create.click();

  await expect(url).toBeFocused();
  await expect(url).toBeInViewport();
  await expect(url).toHaveAttribute("aria-invalid", "true");
  const message = page.locator(`#${await url.getAttribute("aria-describedby")}`);
  await expect(message).toHaveText("This is not a web address. Enter a web address, such as https://example.com/page.");
  await expect(message).not.toContainText("url:");
  expect(await url.evaluate((el) => getComputedStyle(el).borderColor)).not.toBe(
    await page.getByLabel("Title", { exact: true }).evaluate((el) => getComputedStyle(el).borderColor),
  );
  await expect(page.getByRole("alert").filter({ hasText: "Check the highlighted fields." })).toBeVisible();
  await shot(page, testInfo, "link-form-bad-url");

  await url.fill("example.com/spring");
  await create.click();
  await expect(page.getByRole("heading", { level: 1 })).toContainText("/");
  await expect(page.getByText("https://example.com/spring", { exact: true }).first()).toBeVisible();
});

test("an expiry in the past is refused with a clear message, beside the field", async ({ page }, testInfo) => {
  const { slug } = await signUp(page);
  await admin("workspace:plan", { slug, plan: "pro" });
  await page.goto(`/w/${slug}/links/new`);
  await page.getByLabel("Destination URL").fill("https://example.com/summer");
  const expires = page.getByLabel("Expires");
  await expires.fill("2020-01-01T10:00");
  await page.getByRole("button", { name: "Create link" }).click();
  await expect(expires).toBeFocused();
  await expect(expires).toHaveAttribute("aria-invalid", "true");
  await expect(page.locator(`#${await expires.getAttribute("aria-describedby")}`)).toHaveText(
    "This time has already passed, so the link would never work. Pick a later time, or leave it empty.",
  );
  await shot(page, testInfo, "link-form-past-expiry");
  // nothing was created
  await page.goto(`/w/${slug}/links`);
  await expect(page.getByText("No links yet")).toBeVisible();
});
