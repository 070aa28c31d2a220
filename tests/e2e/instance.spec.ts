import { expect, test } from "@playwright/test";
import { admin, shot, signUp } from "./support.ts";

// The instance administrator (granted by the admin CLI) opens the Instance page from the app,
// moves a workspace from Free to Team, and the workspace's owner meets Team's limits at once;
// deactivating makes the workspace read-only for its members, activating undoes it.

test("the instance admin changes a workspace's plan and its limits change; deactivate and activate", async ({
  page,
  browser,
}, testInfo) => {
  const owner = await signUp(page, { name: "Fay Free" });
  await page.goto(`/w/${owner.slug}/settings/api-keys`);
  await expect(page.getByText("0 of 1 live keys used on the Free plan")).toBeVisible();
  // a member of a limited plan is told who can change it, not a command line
  await page.goto(`/w/${owner.slug}/settings/usage#change-plan`);
  await expect(page.getByRole("heading", { name: "Change the plan" })).toBeVisible();
  await expect(page.getByText("npm run admin")).toHaveCount(0);
  await expect(page.getByRole("link", { name: "Instance", exact: true })).toHaveCount(0);

  const ops = await browser.newContext();
  const opsPage = await ops.newPage();
  const operator = await signUp(opsPage, { name: "Ola Ops" });
  expect(await admin("instance:admin", { email: operator.email })).toMatchObject({ email: operator.email, instanceAdmin: true });
  await opsPage.reload();
  await opsPage.getByRole("link", { name: "Instance", exact: true }).first().click();
  await expect(opsPage.getByRole("heading", { name: "Instance", exact: true })).toBeVisible();
  await expect(opsPage.getByRole("list", { name: "Instance administrators" })).toContainText(operator.email);
  await opsPage.getByLabel("Find a workspace").fill(owner.slug);
  await opsPage.getByRole("button", { name: "Find" }).click();
  const row = opsPage.getByTestId(`instance-workspace-${owner.slug}`);
  await expect(row.getByTestId("links-this-month")).toHaveText("0 of 500");
  await expect(row.getByTestId("live-keys")).toHaveText("0 of 1");
  await shot(opsPage, testInfo, "instance-free");

  // choosing a plan only proposes it: cancelling changes nothing
  await row.getByLabel(`Plan of ${owner.slug}`).selectOption({ label: "Pro" });
  await expect(opsPage.getByRole("dialog")).toContainText(`Move ${owner.slug} to Pro?`);
  await opsPage.getByRole("dialog").getByRole("button", { name: "Cancel" }).click();
  await expect(opsPage.getByRole("dialog")).toHaveCount(0);
  await expect(row.getByLabel(`Plan of ${owner.slug}`)).toHaveValue("free");
  await expect(row.getByTestId("links-this-month")).toHaveText("0 of 500");

  await row.getByLabel(`Plan of ${owner.slug}`).selectOption({ label: "Team" });
  await opsPage.getByRole("dialog").getByRole("button", { name: "Change plan" }).click();
  await expect(opsPage.getByRole("status").filter({ hasText: `${owner.slug} is now on Team.` })).toBeVisible();
  await expect(row.getByTestId("links-this-month")).toHaveText("0 of 50,000");
  await expect(row.getByTestId("live-keys")).toHaveText("0 of 10");
  await shot(opsPage, testInfo, "instance-team");

  // the owner sees the Team plan's limits
  await page.goto(`/w/${owner.slug}/settings/api-keys`);
  await expect(page.getByText("0 of 10 live keys used on the Team plan")).toBeVisible();
  await page.goto(`/w/${owner.slug}/developers`);
  await expect(page.getByText("does not include webhooks")).toHaveCount(0);

  // deactivate: the owner's workspace turns read-only; activate: writable again
  await row.getByRole("button", { name: "Deactivate" }).click();
  await opsPage.getByRole("dialog").getByRole("button", { name: "Deactivate" }).click();
  await expect(row.getByText("Deactivated")).toBeVisible();
  await page.goto(`/w/${owner.slug}`);
  await expect(page.getByTestId("workspace-deactivated")).toBeVisible();
  await row.getByRole("button", { name: "Activate" }).click();
  await opsPage.getByRole("dialog").getByRole("button", { name: "Activate" }).click();
  await expect(row.getByText("Active", { exact: true })).toBeVisible();
  await page.reload();
  await expect(page.getByTestId("workspace-deactivated")).toHaveCount(0);

  // the usage page sends the instance admin to the Instance page
  await opsPage.goto(`/w/${operator.slug}/settings/usage`);
  await opsPage.getByRole("link", { name: "Open the Instance page" }).click();
  await expect(opsPage).toHaveURL(new RegExp(`/instance\\?q=${operator.slug}`));
  await ops.close();
});
