import { expect, test } from "@playwright/test";
import { admin, appUrl, PASSWORD, shot, signUp, uniqueEmail } from "./support.ts";

// The workspace's Overview after real clicks (real redirects over HTTP): the clicks of the last 7
// days with their chart, the top links by clicks, the newest links, numbers with thousands
// separators, and onboarding hints only while they are still to do.

test("Overview: clicks of the last 7 days, top links and recent links after real clicks; hints only while true", async ({
  page,
  browser,
}, testInfo) => {
  const { slug } = await signUp(page, { name: "Olga Overview" });
  const getStarted = page.getByRole("heading", { name: "Get started" }).locator("..").locator("..");
  await expect(getStarted.getByRole("link", { name: "Shorten your first link" })).toBeVisible();
  await expect(getStarted.getByRole("link", { name: "Invite your team" })).toBeVisible();
  await expect(page.getByTestId("overview-clicks")).toHaveText("0");

  await admin("workspace:plan", { slug, plan: "team" });
  const { key } = (await admin("key:create", { slug, name: "overview" })) as { key: string };
  const auth = { Authorization: `Bearer ${key}` };
  const make = async (url: string) =>
    (await (await page.request.post(`${appUrl}/api/v1/links`, { headers: auth, data: { url } })).json()) as { code: string; short: string };
  const spring = await make("https://example.com/spring-sale");
  const summer = await make("https://example.com/summer-sale");
  const quiet = await make("https://example.com/never-clicked");
  const ua = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Safari/537.36";
  for (const link of [spring, spring, spring, summer]) {
    const r = await page.request.get(link.short, { maxRedirects: 0, headers: { "User-Agent": ua } });
    expect(r.status()).toBe(302);
  }
  // the click pipeline writes within about a second; wait for it with a deadline
  await expect
    .poll(
      async () =>
        ((await (await page.request.get(`${appUrl}/api/v1/analytics?interval=7d`, { headers: auth })).json()) as { clicks: number }).clicks,
      {
        timeout: 15_000,
      },
    )
    .toBe(4);

  await page.goto(`/w/${slug}`);
  await expect(page.getByTestId("overview-clicks")).toHaveText("4");
  await expect(page.getByRole("img", { name: /Clicks and visitors per day: 4 clicks/ })).toBeVisible();
  const top = page.getByRole("table", { name: "Top links" });
  const rows = top.locator("tbody tr");
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0)).toContainText(`/${spring.code}`);
  await expect(rows.nth(0).getByRole("cell").last()).toHaveText("3");
  await expect(rows.nth(1)).toContainText(`/${summer.code}`);
  const recent = page.getByRole("list", { name: "Recent links" });
  await expect(recent.getByRole("listitem")).toHaveCount(3);
  await expect(recent.getByRole("listitem").first()).toContainText(quiet.code);
  await expect(page.getByTestId("overview-created-this-month")).toHaveText("3 of 50,000");
  // links exist and a key is live: those hints are gone; the team is still just the owner
  await expect(page.getByRole("link", { name: "Shorten your first link" })).toHaveCount(0);
  await expect(page.getByRole("link", { name: "Create an API key" })).toHaveCount(0);
  await expect(page.getByRole("link", { name: "Invite your team" })).toBeVisible();
  await shot(page, testInfo, "overview");

  // a plain member is never asked to invite (and the team is no longer one person anyway)
  const other = await browser.newContext();
  const memberPage = await other.newPage();
  const memberEmail = uniqueEmail("member");
  await admin("user:create", { email: memberEmail, password: PASSWORD });
  await admin("member:add", { slug, email: memberEmail, role: "member" });
  await memberPage.goto(`/login?next=${encodeURIComponent(`/w/${slug}`)}`);
  await memberPage.getByLabel("Email").fill(memberEmail);
  await memberPage.getByLabel("Password").fill(PASSWORD);
  await memberPage.getByRole("button", { name: "Sign in" }).click();
  await memberPage.waitForURL(/\/w\//);
  await memberPage.goto(`/w/${slug}`);
  await expect(memberPage.getByTestId("overview-clicks")).toHaveText("4");
  await expect(memberPage.getByRole("link", { name: "Invite your team" })).toHaveCount(0);
  await expect(memberPage.getByRole("heading", { name: "Get started" })).toHaveCount(0);
  await other.close();
  await page.reload();
  await expect(page.getByRole("heading", { name: "Get started" })).toHaveCount(0);
});
