import { expect, test } from "@playwright/test";
import { Secret, TOTP } from "otpauth";
import { PASSWORD, shot, signUp } from "./support.ts";

// Setting up a second factor on the Account page and signing in with it, as a person with an
// authenticator app would: the code is computed here from the key the page shows as text.

const PERIOD_MS = 30_000;
const codeAt = (secret: string, timestamp: number) => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp });

test("enrolling a second factor and signing in with it", async ({ page }, testInfo) => {
  const { email, slug } = await signUp(page);

  await page.goto("/account");
  await page.getByRole("button", { name: "Set up a second factor" }).click();
  await expect(page.getByRole("img", { name: "QR code of the key for your authenticator app" })).toBeVisible();
  const secret = (await page.getByTestId("totp-secret").innerText()).replace(/\s+/g, "");
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  await shot(page, testInfo, "enrol-qr");

  // a wrong code does not turn it on
  const code = page.getByLabel("Code from your app");
  await expect(code).toHaveAttribute("inputmode", "numeric");
  await expect(code).toHaveAttribute("autocomplete", "one-time-code");
  const enrolledAt = Date.now();
  const right = codeAt(secret, enrolledAt);
  await code.fill(right === "000000" ? "111111" : "000000");
  await page.locator("#two-factor").getByLabel("Your password").fill(PASSWORD);
  await page.getByRole("button", { name: "Turn on" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "That code is not right" })).toBeVisible();

  // the right code alone is not enough: turning it on asks for the account's password
  await code.fill(right);
  await page.locator("#two-factor").getByLabel("Your password").fill("");
  await page.getByRole("button", { name: "Turn on" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Enter your current password." })).toBeVisible();
  await code.fill(right);
  await page.locator("#two-factor").getByLabel("Your password").fill(PASSWORD);
  await page.getByRole("button", { name: "Turn on" }).click();
  const codes = page.getByRole("list", { name: "Recovery codes" }).getByRole("listitem");
  await expect(codes).toHaveCount(10);
  await expect(codes.first()).toHaveText(/^[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}$/);
  // the key is no longer shown once it is on
  await expect(page.getByTestId("totp-secret")).toHaveCount(0);
  const recovery = await codes.nth(2).innerText();
  await shot(page, testInfo, "enrol-recovery-codes");
  await page.getByRole("link", { name: "I saved them" }).click();
  await expect(page.getByText("Signing in asks for a code from your authenticator app.")).toBeVisible();

  // sign out, then in: the password leads to the code step, on a phone-sized screen, by keyboard
  await page.goto(`/w/${slug}`);
  await page.getByRole("button", { name: "Sign out" }).filter({ visible: true }).first().click();
  await expect(page).toHaveURL(/\/login/);
  await page.setViewportSize({ width: 375, height: 740 });
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/login\/two-factor/);
  const codeStep = page.getByLabel("Code", { exact: true });
  await expect(codeStep).toBeFocused();
  await expect(codeStep).toHaveAttribute("inputmode", "numeric");
  await expect(codeStep).toHaveAttribute("autocomplete", "one-time-code");
  await shot(page, testInfo, "sign-in-code-phone");
  // The code of the step after the enrolment's: a code is accepted once, and the server accepts the
  // next step's code too, so this is right whether or not 30 s have passed since enrolling.
  const next = codeAt(secret, (Math.floor(enrolledAt / PERIOD_MS) + 1) * PERIOD_MS);
  await page.keyboard.type(next);
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/w/${slug}$`));

  // turning it off takes a code: a recovery code here
  await page.goto("/account");
  await page.getByLabel("Code to turn it off").fill(recovery);
  await page.getByRole("button", { name: "Turn off second factor" }).click();
  await expect(page.getByRole("button", { name: "Set up a second factor" })).toBeVisible();
});
