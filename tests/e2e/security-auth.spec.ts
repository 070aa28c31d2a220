import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { appUrl, PASSWORD, shot, signUp } from "./support.ts";

// Sign-in redirects stay on this app, and sessions really end: as a visitor's browser sees it.

const appOrigin = new URL(appUrl).origin;

/** Counts any request the browser makes to the attacker's site (answered locally, never sent). */
async function watchEvil(context: BrowserContext) {
  const hits: string[] = [];
  await context.route(/^https?:\/\/evil\.example\//, (route) => {
    hits.push(route.request().url());
    return route.fulfill({ status: 200, contentType: "text/html", body: "<h1>evil</h1>" });
  });
  return hits;
}

async function signIn(page: Page, email: string, password = PASSWORD) {
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

async function signOut(page: Page) {
  await page.getByRole("button", { name: "Sign out" }).filter({ visible: true }).first().click();
  await expect(page).toHaveURL(/\/login/);
}

test("after signing in, next= goes only to paths of this app", async ({ page, context }, testInfo) => {
  const evil = await watchEvil(context);
  const { email, slug } = await signUp(page);

  // Signed in: the login page sends a signed-in visitor on, but never off-site. (Each value is the
  // query text as an attacker would write it in the link.)
  for (const next of ["//evil.example/x", "/%5Cevil.example/x", "/%2F%2Fevil.example/x", "https://evil.example/x", "/%09/evil.example"]) {
    await page.goto(`/login?next=${next}`);
    await expect(page).toHaveURL(new RegExp(`/w/${slug}$`));
    expect(new URL(page.url()).origin).toBe(appOrigin);
  }

  await signOut(page);
  // Signed out: the hidden next field of the form must not carry the visitor away either.
  for (const next of ["/%5Cevil.example/x", "//evil.example/x"]) {
    await page.goto(`/login?next=${next}`);
    await signIn(page, email);
    await expect(page).toHaveURL(new RegExp(`/w/${slug}$`));
    expect(new URL(page.url()).origin).toBe(appOrigin);
    await signOut(page);
  }
  expect(evil).toEqual([]);

  // The legitimate use: a page asked for while signed out opens after signing in.
  await page.goto(`/login?next=${encodeURIComponent(`/w/${slug}/links?q=sale`)}`);
  await signIn(page, email);
  await expect(page).toHaveURL(new RegExp(`/w/${slug}/links\\?q=sale$`));
  await shot(page, testInfo, "next-path-kept");
});

test("a session cookie copied before sign-out no longer opens the workspace", async ({ page, browser }) => {
  const { email, slug } = await signUp(page);
  const copied = await page.context().cookies();
  expect(copied.some((c) => c.name.includes("session-token"))).toBe(true);

  await signOut(page);

  const thief = await browser.newContext({ baseURL: appUrl });
  await thief.addCookies(copied);
  const stolen = await thief.newPage();
  await stolen.goto(`/w/${slug}`);
  await expect(stolen).toHaveURL(/\/login/);
  await thief.close();

  // Signing in again works as before.
  await page.goto(`/login`);
  await signIn(page, email);
  await expect(page).toHaveURL(new RegExp(`/w/${slug}$`));
});

test("changing the password signs out every other session and keeps this one", async ({ page, browser }, testInfo) => {
  const { email, slug } = await signUp(page);
  const other = await browser.newContext({ baseURL: appUrl });
  const otherPage = await other.newPage();
  await otherPage.goto("/login");
  await signIn(otherPage, email);
  await expect(otherPage).toHaveURL(new RegExp(`/w/${slug}$`));

  await page.getByRole("link", { name: "Account" }).filter({ visible: true }).first().click();
  await expect(page.getByRole("heading", { name: "Your account" })).toBeVisible();
  await page.getByLabel("Current password").fill("not the password");
  await page.getByLabel("New password").fill("a brand new password");
  await page.getByRole("button", { name: "Change password" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "The current password is wrong." })).toBeVisible();

  await page.getByLabel("Current password").fill(PASSWORD);
  await page.getByLabel("New password").fill("a brand new password");
  await page.getByRole("button", { name: "Change password" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Password changed" })).toBeVisible();
  await shot(page, testInfo, "password-changed");

  await page.goto(`/w/${slug}`);
  await expect(page).toHaveURL(new RegExp(`/w/${slug}$`));
  await otherPage.goto(`/w/${slug}`);
  await expect(otherPage).toHaveURL(/\/login/);
  await signIn(otherPage, email, "a brand new password");
  await expect(otherPage).toHaveURL(new RegExp(`/w/${slug}$`));
  await other.close();
});
