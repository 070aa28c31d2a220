import fs from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { parseCsv } from "../../lib/csv/index.ts";
import { admin, shot, signUp } from "./support.ts";

// Campaign tools in the browser: import a Bitly export (the preview names the format and the
// mapping), tag links in bulk, filter by tag, export the filtered links, and apply a UTM template
// in the link form.

test("import a Bitly file, bulk tag, filter by tag, export, apply a UTM template", async ({ page }, testInfo) => {
  const { slug } = await signUp(page);
  await admin("workspace:plan", { slug, plan: "team" });

  // 1. Import a Bitly export: the preview shows the detected format and how each column maps.
  await page.goto(`/w/${slug}/links/import`);
  const bitly = fs.readFileSync(path.join(import.meta.dirname, "../fixtures/import/bitly.csv"));
  await page.locator('input[type="file"]').setInputFiles({ name: "bitly-export.csv", mimeType: "text/csv", buffer: bitly });
  await expect(page.getByTestId("import-format")).toHaveText("Bitly export detected");
  const mapping = page.getByRole("table", { name: "Column mapping" });
  await expect(mapping.getByRole("row", { name: /^long_url / })).toContainText("url");
  await expect(mapping.getByRole("row", { name: /^custom_bitlinks / })).toContainText("alias");
  await expect(mapping.getByRole("row", { name: /^created_at / })).toContainText("notes");
  await expect(mapping.getByRole("row", { name: /^id / })).toContainText("not imported");
  await expect(page.getByTestId("import-preview-summary")).toHaveText("3 rows: 3 ready to import.");
  await shot(page, testInfo, "campaigns-import-preview");
  await page.getByRole("button", { name: "Import 3 links" }).click();
  await expect(page.getByTestId("import-summary")).toHaveText("3 created, 0 failed, of 3 rows in bitly-export.csv.", { timeout: 30_000 });
  await page.getByRole("link", { name: "View links" }).click();

  // 2. The imported tags are chips; select two links and add a tag to both.
  const list = page.getByRole("list", { name: "Links" });
  await expect(list.getByRole("listitem")).toHaveCount(3);
  const row = (code: string) => list.getByRole("listitem").filter({ hasText: `/${code}` });
  await expect(row("3xTrAil").getByLabel("Tags").filter({ visible: true })).toContainText("shoes");
  await row("3xTrAil").getByRole("checkbox").check();
  await row("summer-sale").getByRole("checkbox").check();
  const bar = page.getByRole("region", { name: "Selected links" });
  await expect(bar).toContainText("2 selected");
  await bar.getByLabel("Tag name").fill("launch");
  await bar.getByRole("button", { name: "Add tag" }).click();
  await expect(page.getByText("Tagged 2 links with “launch”")).toBeVisible();
  await expect(row("3xTrAil").getByLabel("Tags").filter({ visible: true })).toContainText("launch");
  await expect(row("summer-sale").getByLabel("Tags").filter({ visible: true })).toContainText("launch");
  await expect(row("2nOtAg").getByLabel("Tags").filter({ visible: true })).toHaveCount(0);
  await shot(page, testInfo, "campaigns-bulk-tagged");

  // 3. Filter by the tag.
  await page.getByLabel("Filter by tag").selectOption("launch");
  await page.waitForURL(/tag=launch/);
  await expect(list.getByRole("listitem")).toHaveCount(2);
  await expect(row("2nOtAg")).toHaveCount(0);
  await shot(page, testInfo, "campaigns-filtered");

  // 4. Export the filtered links.
  const download = page.waitForEvent("download");
  await page.getByRole("link", { name: "Export CSV" }).click();
  const file = await (await download).path();
  const rows = parseCsv(fs.readFileSync(file!, "utf8")).rows;
  expect(rows[0]).toEqual([
    "url",
    "alias",
    "domain",
    "title",
    "notes",
    "folder",
    "active",
    "startsOn",
    "expiresOn",
    "maxClicks",
    "fallbackUrl",
    "password",
    "ios",
    "android",
    "geo",
    "tags",
    "forwardQuery",
    "forwardPath",
    "variants",
    "rules",
    "preview",
  ]);
  expect(rows.slice(1).map((r) => [r[1], r[15]])).toEqual([
    ["3xTrAil", "launch, shoes, spring"],
    ["summer-sale", "launch, sale"],
  ]);

  // 5. A UTM template, applied in the link form.
  await page.goto(`/w/${slug}/settings/campaigns`);
  const form = page.getByRole("form", { name: "New UTM template" });
  await form.getByLabel("Name").fill("Newsletter");
  await form.getByLabel("UTM source").fill("newsletter");
  await form.getByLabel("UTM medium").fill("email");
  await form.getByLabel("UTM campaign").fill("spring sale");
  await form.getByRole("button", { name: "Save template" }).click();
  await expect(page.getByRole("list", { name: "UTM templates" })).toContainText("Newsletter");
  await shot(page, testInfo, "campaigns-settings");

  await page.goto(`/w/${slug}/links/new`);
  await page.getByLabel("Destination URL").fill("https://example.com/offer?ref=mail#top");
  await page.getByLabel("UTM template").selectOption({ label: "Newsletter" });
  await expect(page.getByLabel("UTM source")).toHaveValue("newsletter");
  await expect(page.getByTestId("final-url")).toHaveText(
    "https://example.com/offer?ref=mail&utm_source=newsletter&utm_medium=email&utm_campaign=spring%20sale#top",
  );
  await page.getByLabel("Tags").fill("launch");
  await shot(page, testInfo, "campaigns-utm-form");
  await page.getByRole("button", { name: "Create link" }).click();
  await page.waitForURL(/\/links\/\d+$/);
  await expect(
    page.getByText("https://example.com/offer?ref=mail&utm_source=newsletter&utm_medium=email&utm_campaign=spring%20sale#top").first(),
  ).toBeVisible();
  await shot(page, testInfo, "campaigns-utm-link");
});
