import { expect, test } from "@playwright/test";
import { startReceiver } from "../support/https-receiver.ts";
import { admin, signUp, testCa } from "./support.ts";

// The endpoint page's two confirmations: replacing the signing secret shows the new one, and
// removing the endpoint takes the user back to an empty Developers page.

test("replace an endpoint's secret, then remove the endpoint", async ({ page }) => {
  // a real HTTPS receiver (certificate from the run's CA, which the e2e server trusts)
  const receiver = await startReceiver({ tls: testCa().issue(["localhost"]) });
  const url = receiver.url();
  try {
    const { slug } = await signUp(page);
    await admin("workspace:plan", { slug, plan: "team" });
    await page.goto(`/w/${slug}/developers`);
    await page.getByRole("button", { name: "Add endpoint" }).click();
    const add = page.getByRole("dialog", { name: "Add a webhook endpoint" });
    await add.getByLabel("Endpoint URL").fill(url);
    await add.getByRole("button", { name: "Add endpoint" }).click();
    await expect(page.getByRole("heading", { name: "Webhook endpoint" })).toBeVisible();

    const secretCode = page.locator("code").filter({ hasText: /^whsec_/ });
    await page.getByRole("button", { name: "Reveal" }).click();
    const before = (await secretCode.textContent())!;
    expect(before).toMatch(/^whsec_/);

    await page.getByRole("button", { name: "Replace secret" }).click();
    const replace = page.getByRole("dialog", { name: "Replace the signing secret?" });
    await replace.getByRole("button", { name: "Replace secret" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Secret replaced" })).toBeVisible();
    await expect(replace).toBeHidden();
    await expect(secretCode).not.toHaveText(before);
    expect(await secretCode.textContent()).toMatch(/^whsec_/);

    await page.getByRole("button", { name: "Remove endpoint" }).click();
    const remove = page.getByRole("dialog", { name: "Remove this endpoint?" });
    await remove.getByRole("button", { name: "Remove endpoint" }).click();
    await expect(page).toHaveURL(new RegExp(`/w/${slug}/developers$`));
    await expect(page.getByText("No webhook endpoints yet")).toBeVisible();
  } finally {
    await receiver.stop();
  }
});
