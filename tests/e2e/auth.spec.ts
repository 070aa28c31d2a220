import { expect, test } from "@playwright/test";
import { PASSWORD, shot, signUp } from "./support.ts";

test("a new user signs up, lands in their workspace, signs out and in again", async ({ page }, testInfo) => {
  await page.goto("/");
  await expect(page).toHaveURL(/\/login/);
  await shot(page, testInfo, "login");
  await page.getByRole("link", { name: "Create an account" }).click();
  await expect(page.getByRole("heading", { name: "Create your account" })).toBeVisible();
  await shot(page, testInfo, "signup");

  const { email, slug } = await signUp(page, { name: "Ada" });
  await expect(page.getByRole("heading", { name: "Ada's workspace" })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Workspace" }).getByRole("link", { name: "Links" })).toBeVisible();
  await shot(page, testInfo, "workspace");

  await page.getByRole("button", { name: "Sign out" }).filter({ visible: true }).first().click();
  await expect(page).toHaveURL(/\/login/);
  await page.goto(`/w/${slug}`);
  await expect(page).toHaveURL(/\/login/);

  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("wrong password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Wrong email or password" })).toBeVisible();

  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(new RegExp(`/w/${slug}$`));
  await expect(page.getByRole("heading", { name: "Ada's workspace" })).toBeVisible();
});
