import { expect, test } from "@playwright/test";
import { admin, signUp } from "./support.ts";
import { signIn } from "./workspace-seed.ts";

// A link to a page of the app survives signing in: signed out, the page sends the visitor to the
// login page with the whole path and query as `next`, and signing in lands on that very page.

test("signed out, a link's analytics URL with filters leads through sign-in back to that exact URL", async ({ page, browser }) => {
  const { email, slug } = await signUp(page);
  const { key } = (await admin("key:create", { slug, name: "Test client" })) as { key: string };
  const created = await page.request.post("/api/v1/links", {
    headers: { Authorization: `Bearer ${key}` },
    data: { url: "https://example.com/spring" },
  });
  const { id } = (await created.json()) as { id: number };

  const signedOut = await browser.newContext();
  const visitor = await signedOut.newPage();
  const target = `/w/${slug}/links/${id}?country=DE&range=7d`;
  await visitor.goto(target);
  await expect(visitor).toHaveURL(/\/login\?/);
  expect(new URL(visitor.url()).searchParams.get("next")).toBe(target);

  await visitor.getByLabel("Email").fill(email);
  await visitor.getByLabel("Password").fill("correct horse battery");
  await visitor.getByRole("button", { name: "Sign in" }).click();
  await expect(visitor).toHaveURL((url) => url.pathname + url.search === target);
  await expect(visitor.getByRole("heading", { level: 1 })).toContainText("/");

  // the same for another page of the workspace, from a fresh browser
  await signedOut.clearCookies();
  const keys = `/w/${slug}/settings/api-keys`;
  await visitor.goto(keys);
  expect(new URL(visitor.url()).searchParams.get("next")).toBe(keys);
  await signedOut.close();
});

test("a next that leads off the app is not followed after sign-in", async ({ page, browser }) => {
  const { email } = await signUp(page);
  for (const next of ["//evil.example/x", "https://evil.example/x", "/\\evil.example/x"]) {
    const context = await browser.newContext();
    const visitor = await context.newPage();
    await signIn(visitor, email, next);
    expect(new URL(visitor.url()).origin).toBe(new URL(page.url()).origin);
    await expect(visitor).toHaveURL(/\/w\/[^/]+$/);
    await context.close();
  }
});
