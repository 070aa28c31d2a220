import { expect, test } from "@playwright/test";
import { startReceiver } from "../support/https-receiver.ts";
import { admin, shot, signUp, testCa } from "./support.ts";

// Smaller gaps of the workspace app (issue 25, point 7): the import preview shows every row and the
// rows with problems before importing, and a mostly successful import is a warning, not an error;
// an API key needs a name; "Last delivered" follows a successful Test at once; the delivery log
// shows the request body; a refused local webhook URL says how to test locally.

test("import preview: every row a page at a time, the problem rows on their own; 58 of 60 is a warning", async ({ page }, testInfo) => {
  const { slug } = await signUp(page);
  await admin("workspace:plan", { slug, plan: "team" });
  const tag = Date.now().toString(36);
  const lines = ["url,alias,title"];
  for (let i = 1; i <= 60; i++)
    lines.push(`${i === 7 || i === 55 ? `ftp://example.com/${i}` : `https://example.com/${tag}/${i}`},,Item ${i}`);
  await page.goto(`/w/${slug}/links/import`);
  await page
    .locator('input[type="file"]')
    .setInputFiles({ name: "items.csv", mimeType: "text/csv", buffer: Buffer.from(lines.join("\n")) });
  await expect(page.getByTestId("import-preview-summary")).toContainText("60 rows: 58 ready to import, 2 with problems");

  const table = page.getByTestId("import-preview");
  await expect(page.getByTestId("import-preview-range")).toHaveText("Rows 1–50 of 60");
  await expect(table.locator("tbody tr")).toHaveCount(50);
  await page.getByRole("navigation", { name: "Pages of the preview" }).getByRole("button", { name: "Next" }).click();
  await expect(page.getByTestId("import-preview-range")).toHaveText("Rows 51–60 of 60");
  await expect(table.getByRole("cell", { name: "Item 60", exact: true })).toBeVisible();

  await page.getByRole("button", { name: "Rows with problems (2)" }).click();
  await expect(table.locator("tbody tr")).toHaveCount(2);
  await expect(table.locator("tbody tr").nth(0)).toContainText("ftp://example.com/7");
  await expect(table.locator("tbody tr").nth(1)).toContainText("ftp://example.com/55");
  await expect(table.locator("tbody tr").nth(0)).toContainText("Row 7: 'ftp://example.com/7' is not a web address (use http or https)");
  await shot(page, testInfo, "import-preview-problems");

  await page.getByRole("button", { name: "Import 58 links" }).click();
  const toast = page.getByRole("status").filter({ hasText: "Imported 58 links of 60; 2 failed (rows 7, 55)." });
  await expect(toast).toBeVisible({ timeout: 30_000 });
  await expect(toast).toHaveAttribute("data-kind", "warning");
  await expect(page.getByTestId("import-summary")).toContainText("58 created, 2 failed");
});

test("an API key needs a name, in the app and in the CLI", async ({ page }) => {
  const { slug } = await signUp(page);
  await page.goto(`/w/${slug}/settings/api-keys`);
  const name = page.getByLabel("Name");
  await expect(name).toHaveAttribute("required", "");
  // spaces pass the browser's check; the service refuses them beside the field
  await name.fill("   ");
  await page.getByRole("button", { name: "Create key" }).click();
  await expect(page.getByText("Enter a name for the key, e.g. what uses it.")).toBeVisible();
  await expect(name).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByTestId("new-api-key")).toHaveCount(0);
  await expect(admin("key:create", { slug })).rejects.toThrow(/"error":"validation".*--name/);
  await name.fill("CRM sync");
  await page.getByRole("button", { name: "Create key" }).click();
  await expect(page.getByTestId("new-api-key")).toContainText('Key "CRM sync"');
});

test("Last delivered follows a successful Test at once; the log shows the request body sent", async ({ page }, testInfo) => {
  const receiver = await startReceiver({ tls: testCa().issue(["localhost"]), respond: () => ({ status: 204 }) });
  try {
    const { slug } = await signUp(page);
    await admin("workspace:plan", { slug, plan: "team" });
    const endpoint = await admin("webhook:create", { slug, url: receiver.url("127.0.0.1", "/gaps") });
    await page.goto(`/w/${slug}/developers/${endpoint.id}`);
    const health = page.getByRole("heading", { name: "Health" }).locator("..").locator("..");
    await expect(health.getByText("Last delivered").locator("xpath=following-sibling::dd[1]")).toHaveText("—");
    await page.getByRole("button", { name: "Send test event" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Delivered: HTTP 204" })).toBeVisible();
    await expect(health.getByText("Last delivered").locator("xpath=following-sibling::dd[1]")).toHaveText(
      /^[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{2}:\d{2}:\d{2} UTC$/,
    ); // the app's date format (components/dates.ts)

    const sent = receiver.requests[0].raw.toString("utf8");
    const delivery = page.getByTestId("delivery").first();
    await delivery.getByText(/^Request body \(\d+ bytes/).click();
    await expect(delivery.getByTestId("request-body")).toHaveText(JSON.stringify(JSON.parse(sent), null, 2));
    await shot(page, testInfo, "delivery-request-body");
  } finally {
    await receiver.stop();
  }
});
