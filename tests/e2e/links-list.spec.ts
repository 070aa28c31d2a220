import { expect, test } from "@playwright/test";
import { admin, appUrl, shot, signUp } from "./support.ts";
import { BROWSER_UA } from "./workspace-seed.ts";

// The Links list at 1280x800: each short link whole (what people copy), compact rows, a mark for
// each destination's site and a two-week click trend per link.

test.use({ viewport: { width: 1280, height: 800 } });

test("at 1280 px every short link is shown whole, rows are compact, each link has its click trend", async ({ page }, testInfo) => {
  const { slug } = await signUp(page);
  const { key } = (await admin("key:create", { slug, name: "Test client" })) as { key: string };
  const headers = { Authorization: `Bearer ${key}` };
  const made: { id: number; short: string }[] = [];
  for (let i = 0; i < 12; i++) {
    const data = {
      url: `https://www.example-shop.com/campaigns/spring/a-rather-long-landing-page-name-${i}?utm_source=newsletter&utm_medium=email`,
      title: `Spring campaign ${i}`,
      folder: "marketing/2026/spring",
      tags: ["spring", "email"],
    };
    const res = await page.request.post(`${appUrl}/api/v1/links`, { headers, data });
    expect(res.status()).toBe(201);
    made.push((await res.json()) as { id: number; short: string });
  }
  for (let i = 0; i < 2; i++) {
    const r = await page.request.get(made[11].short, { maxRedirects: 0, headers: { "User-Agent": BROWSER_UA } });
    expect(r.status()).toBe(302);
  }
  await expect
    .poll(async () => ((await (await page.request.get(`${appUrl}/api/v1/analytics`, { headers })).json()) as { clicks: number }).clicks)
    .toBe(2);

  await page.goto(`/w/${slug}/links`);
  const rows = page.getByRole("list", { name: "Links" }).getByRole("listitem");
  await expect(rows).toHaveCount(12);
  const shortLinks = page.locator("[data-short-link]");
  for (let i = 0; i < 12; i++) {
    const size = await shortLinks.nth(i).evaluate((el) => {
      const row = el.closest("li")!.getBoundingClientRect();
      const box = el.getBoundingClientRect();
      return { scroll: el.scrollWidth, client: el.clientWidth, right: box.right, rowRight: row.right, text: el.textContent };
    });
    expect(size.scroll, `${size.text} is clipped`).toBeLessThanOrEqual(size.client);
    expect(size.right, `${size.text} runs out of its row`).toBeLessThanOrEqual(size.rowRight);
  }
  // compact: at least ten rows fit on the screen under the page's header
  for (const height of await rows.evaluateAll((els) => els.map((el) => el.getBoundingClientRect().height))) expect(height).toBeLessThan(70);
  // the destination shares the second line only with the tags (the title keeps the first): it
  // takes the rest of the link column, well over the 30 characters it once had
  const destination = page.locator("[data-destination]").first();
  expect((await destination.boundingBox())!.width).toBeGreaterThan(240);
  const room = await destination.evaluate((el) => el.parentElement!.getBoundingClientRect().right - el.getBoundingClientRect().right);
  expect(room, "the destination stops short of its column").toBeLessThanOrEqual(2);
  // the newest link (listed first) was clicked twice today; the others not at all
  await expect(rows.first().getByRole("img", { name: "2 clicks in the last 14 days" })).toBeVisible();
  await expect(rows.nth(1).getByRole("img", { name: "0 clicks in the last 14 days" })).toBeVisible();
  await expect(rows.first().locator("[data-site-mark]")).toHaveText("e");
  await shot(page, testInfo, "links-1280");
});
