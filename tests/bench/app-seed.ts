// A user, a workspace and links with clicks, made through a running app the way a person and a
// script would make them (the sign-up form, an API key from Settings, the JSON API, real redirects),
// for the scripts that drive a started app with a browser: the navigation benchmark and the README
// screenshots. Nothing here needs the app's database or admin CLI.
import { randomBytes } from "node:crypto";
import { chromium, type Browser, type Page } from "@playwright/test";
import { chromiumPath } from "../../scripts/chromium.mjs";

export const BROWSER_UA = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:126.0) Gecko/20100101 Firefox/126.0";
const COUNTRIES = ["US", "DE", "FR", "GB", "US", "JP", "DE", "US", "BR", "CA"];

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath() ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--no-first-run"],
  });
}

export type Seeded = { slug: string; linkIds: number[] };

/** Signs up on `page` (which stays signed in), then creates `links` links and `clicks` clicks. */
export async function seedThroughApp(
  page: Page,
  base: string,
  opts: { name: string; links: { url: string; title?: string; folder?: string; tags?: string[] }[]; clicks: number },
): Promise<Seeded> {
  await page.goto(`${base}/signup`);
  await page.getByLabel("Name (optional)").fill(opts.name);
  await page.getByLabel("Email").fill(`bench-${randomBytes(4).toString("hex")}@example.test`);
  await page.getByLabel("Password").fill(`pw-${randomBytes(8).toString("hex")}`);
  await page.getByRole("button", { name: "Create account" }).click();
  await page.waitForURL(/\/w\/[^/]+$/);
  const slug = new URL(page.url()).pathname.split("/")[2];

  await page.goto(`${base}/w/${slug}/settings/api-keys`);
  await page.getByLabel("Name").fill("Seeding script");
  await page.getByRole("button", { name: "Create key" }).click();
  const key = (await page.getByTestId("new-api-key").locator("code").textContent())!.trim();
  const headers = { Authorization: `Bearer ${key}` };

  // one request per link: the Free plan has no bulk creation and allows 30 API requests a minute
  if (opts.links.length > 28) throw new Error("at most 28 links (the Free plan's API rate is 30 a minute)");
  const created: { id: number; short: string }[] = [];
  for (const data of opts.links) {
    const res = await page.request.post(`${base}/api/v1/links`, { headers, data });
    if (res.status() !== 201) throw new Error(`creating a link answered ${res.status()}: ${await res.text()}`);
    created.push((await res.json()) as { id: number; short: string });
  }
  // Clicks weighted towards the first links, from several countries, through the real redirect.
  for (let i = 0; i < opts.clicks; i++) {
    const link = created[Math.floor(created.length * Math.pow(i / opts.clicks, 2))];
    const country = COUNTRIES[i % COUNTRIES.length];
    await page.request.get(link.short, { maxRedirects: 0, headers: { "User-Agent": BROWSER_UA, "X-Country": country } });
  }
  // visits are written in batches, about once a second; read the total off the Analytics page (the
  // API would spend the key's rate)
  const deadline = Date.now() + 30_000;
  for (;;) {
    const html = await (await page.request.get(`${base}/w/${slug}/analytics`)).text();
    const total = Number(/data-testid="total-clicks"[^>]*>([\d,]+)</.exec(html)?.[1]?.replace(/,/g, "") ?? 0);
    if (total >= opts.clicks) break;
    if (Date.now() > deadline) throw new Error(`the clicks did not show up in the analytics within 30 s (${total} of ${opts.clicks})`);
    await new Promise((r) => setTimeout(r, 500));
  }
  return { slug, linkIds: created.map((l) => l.id) };
}

/** Realistic links for a marketing team's workspace. */
export function sampleLinks(count: number) {
  const campaigns = ["spring-sale", "newsletter-11", "webinar", "product-launch", "black-friday", "careers", "docs", "podcast"];
  return Array.from({ length: count }, (_, i) => {
    const c = campaigns[i % campaigns.length];
    return {
      url: `https://www.example-shop.com/campaigns/${c}/landing-page-${i + 1}?utm_source=newsletter&utm_medium=email`,
      title: `${c.replace(/-/g, " ").replace(/^./, (ch) => ch.toUpperCase())} #${i + 1}`,
      folder: i % 3 === 0 ? "marketing/2026" : i % 3 === 1 ? "sales" : undefined,
      tags: i % 2 === 0 ? ["campaign"] : ["email", "q4"],
    };
  });
}
