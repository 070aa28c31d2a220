import fs from "node:fs";
import { expect, test } from "@playwright/test";
import { admin, analyticsPanel, appUrl, shot, signUp } from "./support.ts";

// The Analytics page with real clicks (real redirects with real browser User-Agents, countries from
// the country header, referrers): totals, a filter applied by clicking a row (kept in the URL), the
// bots toggle, the CSV export downloaded, the link page's analytics and the phone layout.

const UA = {
  iphone:
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
  windows:
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Safari/537.36 Edg/125.0.2535.67",
  mac: "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:126.0) Gecko/20100101 Firefox/126.0",
  slack: "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
};

test("analytics: figures from real clicks, filter by clicking a row, bots toggle, CSV export, phone width", async ({ page }, testInfo) => {
  const { slug } = await signUp(page);
  const { key } = (await admin("key:create", { slug, name: "analytics" })) as { key: string };
  const auth = { Authorization: `Bearer ${key}` };
  const make = async (url: string) =>
    (await (await page.request.post(`${appUrl}/api/v1/links`, { headers: auth, data: { url } })).json()) as {
      code: string;
      id: number;
      short: string;
    };
  const spring = await make("https://example.com/spring");
  const summer = await make("https://example.com/summer");

  const visits: [typeof spring, string, string, string | null][] = [
    [spring, UA.iphone, "US", "https://t.co/x"],
    [spring, UA.iphone, "US", "https://t.co/y"],
    [spring, UA.windows, "DE", "https://www.google.com/"],
    [spring, UA.mac, "DE", null],
    [summer, UA.windows, "FR", "https://news.ycombinator.com/"],
    [summer, UA.slack, "US", null], // a bot: redirected, not counted
  ];
  for (const [link, ua, country, referer] of visits) {
    const r = await page.request.get(link.short, {
      maxRedirects: 0,
      headers: { "User-Agent": ua, "X-Country": country, ...(referer ? { Referer: referer } : {}) },
    });
    expect(r.status()).toBe(302);
  }
  // the events are written within a second of the redirects
  await expect
    .poll(
      async () => ((await (await page.request.get(`${appUrl}/api/v1/analytics`, { headers: auth })).json()) as { clicks: number }).clicks,
      { timeout: 10_000 },
    )
    .toBe(5);

  await page.getByRole("navigation", { name: "Workspace" }).getByRole("link", { name: "Analytics" }).click();
  await expect(page.getByRole("heading", { name: "Analytics", level: 1 })).toBeVisible();
  await expect(page.getByTestId("total-clicks")).toHaveText("5");
  await expect(page.getByRole("img", { name: /Clicks and visitors per day: 5 clicks/ })).toBeVisible();
  const countries = page.getByRole("table", { name: "Countries" });
  // Countries is the first tab of its card: shown without a click
  await expect(countries.getByRole("row")).toHaveCount(4); // header + US, DE, FR
  await expect(await analyticsPanel(page, "Browsers")).toContainText("Safari");
  await expect(await analyticsPanel(page, "Referrers")).toContainText("t.co");
  // where the visits were sent and their languages (what the redirect recorded; rows are labels, not filters)
  for (const name of ["Destinations", "Languages"]) await expect((await analyticsPanel(page, name)).getByRole("row").nth(1)).toBeVisible();
  // back to the first tab of each card for the screenshot and the filter below
  for (const name of ["Countries", "Links"]) await analyticsPanel(page, name);
  await shot(page, testInfo, "analytics-page");

  // Filter by clicking a row: kept in the URL, shown as a removable chip, figures follow.
  await countries.getByRole("link", { name: "Germany" }).click();
  await expect(page).toHaveURL(/country=DE/);
  await expect(page.getByTestId("total-clicks")).toHaveText("2");
  await expect(page.getByRole("link", { name: "Remove filter Country: Germany" })).toBeVisible();
  // the card keeps the tab chosen before the filter
  await expect(page.getByRole("tab", { name: "Browsers" })).toHaveAttribute("aria-selected", "true");
  await expect(page.getByRole("table", { name: "Browsers" })).not.toContainText("Safari");
  await shot(page, testInfo, "analytics-filtered");

  // A shared URL shows the same figures.
  await page.goto(page.url());
  await expect(page.getByTestId("total-clicks")).toHaveText("2");

  // The CSV export of the filtered range.
  const download = page.waitForEvent("download");
  await page.getByRole("link", { name: "Export CSV" }).click();
  const file = await (await download).path();
  const lines = fs.readFileSync(file, "utf8").trim().split(/\r?\n/);
  expect(lines[0]).toBe("time,link,domain,target,country,city,referrer_host,referrer_url,device,browser,os,bot,qr,destination,language");
  expect(lines).toHaveLength(3);
  expect(lines.slice(1).every((l) => l.includes(",DE,"))).toBe(true);

  // Remove the filter; include bots.
  await page.getByRole("link", { name: "Remove filter Country: Germany" }).click();
  await expect(page.getByTestId("total-clicks")).toHaveText("5");
  await page.getByRole("button", { name: "Include bots" }).click();
  await expect(page).toHaveURL(/bots=include/);
  await expect(page.getByTestId("total-clicks")).toHaveText("6");
  await page.getByRole("button", { name: "People only" }).click();
  await expect(page.getByTestId("total-clicks")).toHaveText("5");

  // The link page has the same analytics, for that link only.
  await page
    .getByRole("table", { name: "Links" })
    .getByRole("link", { name: new RegExp(`/${spring.code}$`) })
    .click();
  await expect(page).toHaveURL(/link=/);
  await expect(page.getByTestId("total-clicks")).toHaveText("4");
  await page.goto(`/w/${slug}/links/${spring.id}`);
  await expect(page.getByTestId("total-clicks")).toHaveText("4");
  await expect(page.getByRole("img", { name: /Clicks and visitors per day: 4 clicks/ })).toBeVisible();
  await shot(page, testInfo, "link-analytics");

  // Readable at phone width: nothing wider than the screen.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`/w/${slug}/analytics`);
  await expect(page.getByTestId("total-clicks")).toHaveText("5");
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(1);
  await shot(page, testInfo, "analytics-phone");
});
