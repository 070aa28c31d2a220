import { expect, test } from "@playwright/test";
import { signUp } from "./support.ts";

// Deleting from the link's own page: confirm, then back on the list with the link gone.

test("delete a link from its page", async ({ page }) => {
  const { slug } = await signUp(page);
  await page.goto(`/w/${slug}/links/new`);
  await page.getByLabel("Destination URL").fill("https://example.com/delete-me");
  await page.getByRole("button", { name: "Create link" }).click();
  await expect(page).toHaveURL(new RegExp(`/w/${slug}/links/\\d+$`));

  await page.getByRole("button", { name: "Delete", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "Delete this link?" });
  await dialog.getByRole("button", { name: "Delete link" }).click();
  await expect(page).toHaveURL(new RegExp(`/w/${slug}/links$`));
  await expect(page.getByRole("status").filter({ hasText: "Deleted" })).toBeVisible();
  await expect(page.getByText("example.com/delete-me")).toHaveCount(0);
});
