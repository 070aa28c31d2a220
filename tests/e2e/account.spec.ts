import { expect, test, type Page } from "@playwright/test";
import { PASSWORD, shot, signUp, uniqueEmail, waitForMail } from "./support.ts";

// The Account page's change of email and "Delete account", as a person does them in the browser.

async function signIn(page: Page, email: string, password = PASSWORD) {
  await page.goto("/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

test("change of email: the link mailed to the new address makes the change; then only the new address signs in", async ({
  page,
}, testInfo) => {
  const { email, slug } = await signUp(page);
  const next = uniqueEmail("new");
  await page.goto("/account");
  const form = page.getByRole("form", { name: "Email address" });
  await form.getByLabel("New email address").fill(next);
  await form.getByLabel("Your password").fill("wrong password");
  await form.getByRole("button", { name: "Send confirmation link" }).click();
  await expect(form.getByRole("alert")).toHaveText("The current password is wrong.");

  // What was typed stays after a refusal; the password is asked again.
  await expect(form.getByLabel("New email address")).toHaveValue(next);
  await form.getByLabel("Your password").fill(PASSWORD);
  await form.getByRole("button", { name: "Send confirmation link" }).click();
  await expect(form.getByRole("status")).toContainText(`We sent a link to ${next}`);
  await shot(page, testInfo, "email-change-sent");

  const mail = await waitForMail(next, 15_000, "Confirm your new email address for Linkhop");
  const link = /https?:\/\/\S+\/account\/email\/\S+/.exec(mail.text)![0];
  await page.goto(new URL(link).pathname);
  await expect(page.getByRole("heading", { name: "Confirm your new email address" })).toBeVisible();
  await page.getByRole("button", { name: "Confirm new address" }).click();
  await expect(page).toHaveURL(/\/login\?emailChanged=1/);
  await expect(page.getByRole("status")).toContainText("Sign in with the new address.");
  await waitForMail(email, 15_000, "Your Linkhop email address was changed");
  await shot(page, testInfo, "email-changed");

  // This browser's session ended with the change.
  await page.goto(`/w/${slug}`);
  await expect(page).toHaveURL(/\/login/);
  await signIn(page, email);
  await expect(page.getByRole("alert").filter({ hasText: "Wrong email or password." })).toBeVisible();
  await signIn(page, next);
  await expect(page).toHaveURL(new RegExp(`/w/${slug}$`));
});

test("delete account on a phone: the workspace is named and ticked, then the account is gone", async ({ page }, testInfo) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const { email, slug } = await signUp(page, { name: "Dana" });
  await page.goto("/account");
  const section = page.getByRole("region", { name: "Delete account" });
  await section.getByLabel("Your password").fill(PASSWORD);
  await section.getByRole("button", { name: "Delete my account" }).click();
  await expect(section.getByRole("alert")).toContainText("Tick each workspace that will be deleted");
  await expect(page).toHaveURL(/\/account$/);

  await section.getByRole("checkbox", { name: /Delete Dana's workspace/ }).check();
  await section.getByLabel("Your password").fill(PASSWORD);
  await shot(page, testInfo, "delete-account-phone");
  await section.getByRole("button", { name: "Delete my account" }).click();
  await expect(page).toHaveURL(/\/login\?deleted=1/);
  await expect(page.getByRole("status")).toHaveText("Your account was deleted.");
  await waitForMail(email, 15_000, "Your Linkhop account was deleted");

  await signIn(page, email);
  await expect(page.getByRole("alert").filter({ hasText: "Wrong email or password." })).toBeVisible();
  await page.goto(`/w/${slug}`);
  await expect(page).toHaveURL(/\/login/);
});
