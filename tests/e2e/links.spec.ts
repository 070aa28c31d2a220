import { expect, test } from "@playwright/test";
import { admin, shot, signUp } from "./support.ts";

test.use({ permissions: ["clipboard-read", "clipboard-write"] });

test("create, edit and delete a link from a fresh sign-up", async ({ page }, testInfo) => {
  const { slug } = await signUp(page);
  await page.getByRole("navigation", { name: "Workspace" }).getByRole("link", { name: "Links" }).click();
  await expect(page.getByText("No links yet")).toBeVisible();
  await shot(page, testInfo, "links-empty");

  await page.getByRole("link", { name: "Create your first link" }).click();
  await expect(page.getByRole("heading", { name: "New link" })).toBeVisible();
  // The free plan has no custom aliases: the field is disabled with an upgrade hint.
  await expect(page.getByLabel("Short code (alias)")).toBeDisabled();
  await expect(page.getByText("Custom aliases are not in your plan.")).toBeVisible();
  await shot(page, testInfo, "link-new");

  // The API's rules, beside the field.
  await page.getByLabel("Destination URL").fill("not a url");
  await page.getByRole("button", { name: "Create link" }).click();
  await expect(page.getByText("This is not a web address. Enter a web address, such as https://example.com/page.")).toBeVisible();
  await expect(page.getByLabel("Destination URL")).toHaveAttribute("aria-invalid", "true");
  await shot(page, testInfo, "link-new-invalid");

  await page.getByLabel("Destination URL").fill("https://example.com/spring?ref=e2e");
  await page.getByLabel("Title", { exact: true }).fill("Spring campaign");
  await page.getByLabel("Folder").fill("marketing/2026");
  await page.getByRole("button", { name: "Create link" }).click();

  await expect(page.getByRole("heading", { level: 1 })).toContainText(`localhost:${new URL(page.url()).port}/`);
  await expect(page.getByText("Spring campaign")).toBeVisible();
  await expect(page.getByRole("img", { name: /QR code for/ })).toBeVisible();
  await expect(page.getByRole("img", { name: /Clicks and visitors per day/ })).toBeVisible();
  const short = (await page.getByRole("heading", { level: 1 }).textContent())!.trim();
  const code = short.split("/").pop()!;
  expect(code).toMatch(/^[A-Za-z0-9]{7}$/);

  // Copy the short URL.
  await page.getByRole("button", { name: "Copy short URL" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Short URL copied" })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`http://${short}`);

  // The short link works, and a visit shows up in the clicks. A browser's User-Agent: Playwright's
  // own request client is a bot to isbot, and bots are redirected but not counted.
  const browser = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:126.0) Gecko/20100101 Firefox/126.0";
  const visit = await page.request.get(`http://${short}`, { maxRedirects: 0, headers: { "User-Agent": browser } });
  expect(visit.status()).toBe(302);
  expect(visit.headers()["location"]).toBe("https://example.com/spring?ref=e2e");
  // Visits are written in batches (about once a second): reload until the page shows it, all time
  // and in the analytics of the last 30 days.
  await expect(async () => {
    await page.reload();
    await expect(page.getByTestId("link-clicks-all-time")).toHaveText("1", { timeout: 1_000 });
    await expect(page.getByTestId("total-clicks")).toHaveText("1", { timeout: 1_000 });
  }).toPass({ timeout: 20_000 });
  await shot(page, testInfo, "link-detail");

  // A QR code to download.
  const download = page.waitForEvent("download");
  await page.getByRole("button", { name: "Download PNG" }).click();
  expect((await download).suggestedFilename()).toBe(`qr-${code}.png`);

  // Edit.
  await page.getByRole("link", { name: "Edit", exact: true }).click();
  await expect(page.getByRole("heading", { name: "Edit link" })).toBeVisible();
  await expect(page.getByLabel("Destination URL")).toHaveValue("https://example.com/spring?ref=e2e");
  await shot(page, testInfo, "link-edit");
  await page.getByLabel("Destination URL").fill("https://example.com/summer");
  await page.getByLabel("Title", { exact: true }).fill("Summer campaign");
  await page.getByLabel("Maximum clicks").fill("100");
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Link saved" })).toBeVisible();
  await expect(page.getByText("Summer campaign")).toBeVisible();
  await expect(page.getByRole("link", { name: "https://example.com/summer" })).toBeVisible();
  const after = await page.request.get(`http://${short}`, { maxRedirects: 0 });
  expect(after.headers()["location"]).toBe("https://example.com/summer");

  // The table: search, folder tree, then delete with confirmation.
  await page.getByRole("link", { name: "← All links" }).click();
  const table = page.getByRole("list", { name: "Links" });
  await expect(table.getByRole("link", { name: short, exact: true })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Folders" }).getByRole("link", { name: /2026/ })).toBeVisible();
  await page.getByRole("searchbox", { name: "Search links" }).fill("nothing-like-this");
  await expect(page.getByText("No links match")).toBeVisible();
  await page.getByRole("searchbox", { name: "Search links" }).fill("summer");
  await expect(table.getByRole("link", { name: short, exact: true })).toBeVisible();
  await shot(page, testInfo, "links-table");

  await page.setViewportSize({ width: 390, height: 844 });
  await shot(page, testInfo, "links-table-phone");
  await page.setViewportSize({ width: 1280, height: 800 });

  await table.getByRole("button", { name: `Delete ${short}` }).click();
  const dialog = page.getByRole("dialog", { name: "Delete this link?" });
  await expect(dialog).toBeVisible();
  await shot(page, testInfo, "link-delete-confirm");
  // Escape closes without deleting.
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  await table.getByRole("button", { name: `Delete ${short}` }).click();
  await dialog.getByRole("button", { name: "Delete link" }).click();
  await expect(page.getByRole("status").filter({ hasText: `Deleted http://${short}` })).toBeVisible();
  await expect(page.getByText("No links yet")).toBeVisible();
  expect((await page.request.get(`http://${short}`, { maxRedirects: 0 })).status()).toBe(404);

  // On a plan with the features, the form offers them.
  await admin("workspace:plan", { slug, plan: "pro" });
  await page.goto(`/w/${slug}/links/new`);
  await expect(page.getByLabel("Short code (alias)")).toBeEnabled();
  await page.getByLabel("Destination URL").fill("https://example.com/docs");
  await page.getByLabel("Short code (alias)").fill("api");
  await page.getByRole("button", { name: "Create link" }).click();
  await expect(page.getByText('The alias "api" is already taken on that domain.')).toBeVisible();
  await page.getByLabel("Short code (alias)").fill(`docs-${Date.now()}`);
  await page.getByLabel("Password").fill("open sesame");
  await page.getByRole("button", { name: "Create link" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toContainText("/docs-");
  await expect(page.getByText("Required")).toBeVisible();
});
