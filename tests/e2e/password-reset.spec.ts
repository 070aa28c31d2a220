import { expect, test, type Page } from "@playwright/test";
import { appUrl, PASSWORD, shot, signUp, waitForMail } from "./support.ts";

// "Forgot password?" in the browser (lib/auth/password-reset.ts): ask on the login page, open the
// mailed link, set a new password, sign in with it; the old password no longer works and a
// session opened elsewhere before the reset has ended.

const NEW_PASSWORD = "a fresh password after forgetting";

async function signIn(page: Page, email: string, password: string) {
  await page.goto("/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

test("forgot password: the mailed link sets a new password, the old one stops working", async ({ page, browser }, testInfo) => {
  const { email, slug } = await signUp(page);
  await expect(page.getByText("Verify your email: we sent a link to")).toBeVisible();
  // Another device, signed in before the reset.
  const elsewhere = await browser.newContext({ baseURL: appUrl });
  const laptop = await elsewhere.newPage();
  await signIn(laptop, email, PASSWORD);
  await expect(laptop).toHaveURL(new RegExp(`/w/${slug}$`));

  await page.getByRole("button", { name: "Sign out" }).filter({ visible: true }).first().click();
  await expect(page).toHaveURL(/\/login/);
  await page.getByRole("link", { name: "Forgot password?" }).click();
  await expect(page.getByRole("heading", { name: "Reset your password" })).toBeVisible();
  await page.getByLabel("Email").fill(email);
  await shot(page, testInfo, "forgot-password");
  await page.getByRole("button", { name: "Send reset link" }).click();
  await expect(page.getByRole("status")).toContainText("If a Linkhop account uses that address, we have mailed it a link");
  await shot(page, testInfo, "forgot-password-sent");

  const mail = await waitForMail(email, 15_000, "Reset your Linkhop password");
  const link = /https?:\/\/\S+\/reset-password\/[A-Za-z0-9_-]+/.exec(mail.text)![0];
  await page.goto(link);
  await expect(page.getByRole("heading", { name: "Set a new password" })).toBeVisible();
  await expect(page.getByText(email)).toBeVisible();
  await page.getByLabel("New password").fill(NEW_PASSWORD);
  await shot(page, testInfo, "reset-password");
  await page.getByRole("button", { name: "Set password" }).click();
  await expect(page.getByRole("heading", { name: "Password set" })).toBeVisible();
  await shot(page, testInfo, "reset-password-done");

  await page.getByRole("link", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/login$/);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Wrong email or password" })).toBeVisible();
  await page.getByLabel("Password").fill(NEW_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(new RegExp(`/w/${slug}$`));
  await expect(page.getByRole("navigation", { name: "Workspace" })).toBeVisible();
  // The link came from the mailbox: the address is verified now.
  await expect(page.getByText("Verify your email: we sent a link to")).toHaveCount(0);

  // The link works once, and the other device's session has ended.
  await page.goto(link);
  await expect(page.getByRole("heading", { name: "This link was already used" })).toBeVisible();
  await laptop.goto(`/w/${slug}`);
  await expect(laptop).toHaveURL(/\/login/);
  await elsewhere.close();
});
