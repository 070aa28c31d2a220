import fs from "node:fs";
import path from "node:path";
import { expect, test, type Browser, type BrowserContext, type Page } from "@playwright/test";
import pg from "pg";
import type { ClickEvent } from "../../lib/analytics/model.ts";
import { PostgresClickStore } from "../../lib/analytics/store/click-store.ts";
import { admin, analyticsPanel, appUrl, dataDir, seriousViolations, signUp } from "./support.ts";

// Campaign analytics in the browser, desktop and phone, on one workspace seeded in beforeAll: clicks
// through the real redirect (UTM values in the links' URLs, tags, QR scans by the QR marker,
// languages by Accept-Language) and, where a redirect cannot make them, events stored through the
// app's own click store in the e2e database (a city, which needs a city database; clicks ten days
// ago, for the previous period). Then: each new panel's figures, the previous-period comparison,
// a custom range, View all, a panel row filtering the page and the export, and a saved view's
// share link opened signed out (only its figures, not widened by the URL, no other workspace),
// revoked to a 404; axe on View all and the share page at both sizes.

const UA = {
  iphone:
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
  windows:
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Safari/537.36 Edg/125.0.2535.67",
  mac: "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:126.0) Gecko/20100101 Firefox/126.0",
};
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const DAY = 86_400_000;

type LinkRow = { id: number; code: string; short: string; url: string };
let context: BrowserContext;
let page: Page;
let slug = "";
let email = "";
let key = "";
let spring: LinkRow;
let summer: LinkRow;
let shareUrl = "";

/** The e2e app's embedded database (tests/e2e/serve.ts; lib/db/embedded.ts writes its settings to pg.json). */
function e2eDatabase(): pg.Pool {
  const meta = JSON.parse(fs.readFileSync(path.join(dataDir, "pg.json"), "utf8")) as { user: string; password: string; port: number };
  return new pg.Pool({
    connectionString: `postgres://${meta.user}:${encodeURIComponent(meta.password)}@127.0.0.1:${meta.port}/linkhop`,
    max: 1,
  });
}

async function axe(p: Page, name: string) {
  expect(await seriousViolations(p, name)).toEqual([]);
}

const total = (p: Page) => p.getByTestId("total-clicks");
// a panel's table, its tab chosen first (support.ts analyticsPanel)
const panel = analyticsPanel;
const rowOf = async (p: Page, panelName: string, label: string) =>
  (await panel(p, panelName)).getByRole("row").filter({ has: p.getByText(label, { exact: true }) });

test.describe.configure({ mode: "serial" });

test.beforeAll(async ({ browser }: { browser: Browser }) => {
  test.setTimeout(90_000);
  context = await browser.newContext({ viewport: DESKTOP });
  page = await context.newPage();
  ({ slug, email } = await signUp(page));
  ({ key } = (await admin("key:create", { slug, name: "campaigns" })) as { key: string });
  const auth = { Authorization: `Bearer ${key}` };
  const make = async (url: string, tags: string[]) =>
    (await (await page.request.post(`${appUrl}/api/v1/links`, { headers: auth, data: { url, tags } })).json()) as LinkRow;
  spring = await make("https://example.com/spring?utm_source=newsletter&utm_medium=email&utm_campaign=spring", ["launch"]);
  summer = await make("https://example.com/summer?utm_source=twitter&utm_medium=social&utm_campaign=summer", ["promo"]);

  // now, through the real redirect: 5 clicks, 2 of them QR scans
  const visits: [LinkRow, string, string, string, boolean][] = [
    [spring, UA.iphone, "US", "de-DE,de;q=0.9", true],
    [spring, UA.windows, "DE", "de", false],
    [spring, UA.mac, "DE", "en-US", false],
    [summer, UA.windows, "FR", "fr-FR", false],
    [summer, UA.iphone, "US", "en", true],
  ];
  for (const [link, ua, country, language, qr] of visits) {
    const r = await page.request.get(qr ? `${link.short}?qr=1` : link.short, {
      maxRedirects: 0,
      headers: { "User-Agent": ua, "X-Country": country, "Accept-Language": language },
    });
    expect(r.status()).toBe(302);
  }
  // through the click store: a click from Paris two hours ago, and 4 clicks ten days ago (the previous period of "7 days")
  const db = e2eDatabase();
  try {
    const { rows } = await db.query<{ id: number }>(`select id from "Workspace" where slug = $1`, [slug]);
    const event = (link: LinkRow, at: number, visitor: string, city: string | null, country: string, language: string): ClickEvent => ({
      at,
      workspaceId: rows[0].id,
      linkId: link.id,
      domain: new URL(link.short).host,
      target: "destination",
      country,
      city,
      referrerHost: null,
      referrerUrl: null,
      device: "desktop",
      browser: "Chrome",
      os: "Windows",
      bot: false,
      qr: false,
      visitor,
      destination: link.url,
      language,
    });
    const now = Date.now();
    await new PostgresClickStore(db).record([
      event(summer, now - 2 * 3_600_000, "901", "Paris", "FR", "fr"),
      ...[1, 2, 3, 4].map((i) => event(spring, now - 10 * DAY, `90${1 + i}`, null, "DE", "de")),
    ]);
  } finally {
    await db.end();
  }
  await expect
    .poll(
      async () =>
        ((await (await page.request.get(`${appUrl}/api/v1/analytics?interval=7d`, { headers: auth })).json()) as { clicks: number }).clicks,
      { timeout: 15_000 },
    )
    .toBe(6);
});

test.afterAll(async () => {
  await context?.close();
});

for (const [device, viewport] of [
  ["desktop", DESKTOP],
  ["phone", PHONE],
] as const) {
  test(`${device}: the campaign panels show the seeded figures, with the previous period compared`, async () => {
    await page.setViewportSize(viewport);
    await page.goto(`/w/${slug}/analytics?interval=7d`);
    await expect(total(page)).toHaveText("6");
    // 6 clicks now against 4 in the 7 days before
    await expect(page.getByTestId("total-clicks-previous")).toHaveText("+50 % vs 4 before");
    await expect(page.getByTestId("chart-legend")).toHaveText(/Clicks\s*Visitors\s*Clicks, previous period/);
    await expect(page.getByText("Visitors: a visitor counts once a day")).toBeVisible();
    await expect(await rowOf(page, "UTM source", "newsletter")).toContainText("3");
    await expect(await rowOf(page, "UTM source", "twitter")).toContainText("3");
    await expect(await rowOf(page, "UTM medium", "email")).toContainText("3");
    await expect(await rowOf(page, "UTM campaign", "summer")).toContainText("3");
    await expect(await rowOf(page, "Tags", "launch")).toContainText("3");
    await expect(await rowOf(page, "Tags", "promo")).toContainText("3");
    await expect(await rowOf(page, "QR versus link", "QR scan")).toContainText("2");
    await expect(await rowOf(page, "QR versus link", "Link click")).toContainText("4");
    await expect(await rowOf(page, "Cities", "Paris, FR")).toContainText("1");
    await expect(await rowOf(page, "Languages", "de")).toContainText("2");
    await expect(await rowOf(page, "Languages", "fr")).toContainText("2");
    await expect(await panel(page, "Destinations")).toContainText("https://example.com/spring?utm_source=newsletter");
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(1);
    await axe(page, `analytics ${device}`);
  });
}

test("a custom range (From and To, both included) goes into the URL and shows that range's figures", async () => {
  await page.setViewportSize(DESKTOP);
  await page.goto(`/w/${slug}/analytics`);
  const day = (ago: number) => new Date(Date.now() - ago * DAY).toISOString().slice(0, 10);
  const form = page.getByRole("form", { name: "Custom range" });
  await form.getByLabel("From").fill(day(11));
  await form.getByLabel("To").fill(day(9));
  await form.getByRole("button", { name: "Apply range" }).click();
  await expect(page).toHaveURL(new RegExp(`start=${day(11)}T00%3A00%3A00%2B00%3A00`));
  await expect(total(page)).toHaveText("4");
  await expect(page.getByTestId("range-shown")).toContainText(`${day(11)} to ${day(9)}`);
  // linkable: the same URL loaded afresh shows the same
  await page.goto(page.url());
  await expect(total(page)).toHaveText("4");
  // an end before the start is refused in place
  await form.getByLabel("To").fill(day(12));
  await form.getByRole("button", { name: "Apply range" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "must not be before" })).toBeVisible();
});

test("View all lists a panel's rows in a view of its own (axe at desktop and phone)", async () => {
  for (const viewport of [DESKTOP, PHONE]) {
    await page.setViewportSize(viewport);
    await page.goto(`/w/${slug}/analytics?interval=7d`);
    // "View all" is the chosen tab's: Languages chosen in its card first
    await panel(page, "Languages");
    await page.getByRole("link", { name: "View all: Languages" }).click();
    await expect(page).toHaveURL(/all=languages/);
    await expect(page.getByTestId("view-all")).toBeVisible();
    await expect(page.getByRole("table", { name: "Languages" }).getByRole("row")).toHaveCount(4); // header + de, en, fr
    await expect(page.getByRole("table", { name: "Countries" })).toHaveCount(0);
    await axe(page, `view all ${viewport.width}`);
    await page.getByRole("link", { name: "← All panels" }).click();
    await expect(page.getByRole("table", { name: "Countries" })).toBeVisible();
  }
});

test("the panels' cards are tabs: arrows, Home and End choose one, and the choice stays when the range changes", async () => {
  await page.setViewportSize(DESKTOP);
  await page.goto(`/w/${slug}/analytics?interval=7d`);
  await expect(page.getByRole("table", { name: "Countries" })).toBeVisible();
  const tab = (name: string) => page.getByRole("tab", { name, exact: true });
  await tab("Countries").focus();
  await page.keyboard.press("ArrowRight");
  await expect(tab("Cities")).toBeFocused();
  await expect(tab("Cities")).toHaveAttribute("aria-selected", "true");
  await expect(page.getByRole("table", { name: "Cities" })).toBeVisible();
  await expect(page.getByRole("table", { name: "Countries" })).toHaveCount(0);
  await page.keyboard.press("End");
  await expect(tab("Languages")).toBeFocused();
  await expect(page.getByRole("table", { name: "Languages" })).toBeVisible();
  await page.keyboard.press("Home");
  await expect(tab("Countries")).toBeFocused();
  await page.keyboard.press("ArrowLeft"); // wraps to the last
  await expect(tab("Languages")).toHaveAttribute("aria-selected", "true");
  // one tab stop per card: the others are reached with the arrows
  await expect(tab("Countries")).toHaveAttribute("tabindex", "-1");

  await tab("UTM medium").click();
  await expect(page.getByRole("table", { name: "UTM medium" })).toBeVisible();
  await page.getByRole("navigation", { name: "Time range" }).getByRole("link", { name: "30 days" }).click();
  await expect(page.getByRole("navigation", { name: "Time range" }).getByRole("link", { name: "30 days" })).toHaveAttribute(
    "aria-current",
    "page",
  );
  await expect(tab("UTM medium")).toHaveAttribute("aria-selected", "true");
  await expect(tab("Languages")).toHaveAttribute("aria-selected", "true");
  // 30 days: the 3 clicks of now and the 4 of ten days ago
  await expect(await rowOf(page, "UTM medium", "email")).toContainText("7");
});

test("clicking a panel row filters the whole page and the export", async () => {
  await page.setViewportSize(DESKTOP);
  await page.goto(`/w/${slug}/analytics?interval=7d`);
  await (await panel(page, "UTM source")).getByRole("link", { name: "newsletter" }).click();
  await expect(page).toHaveURL(/utm_source=newsletter/);
  await expect(total(page)).toHaveText("3");
  await expect(page.getByRole("link", { name: "Remove filter UTM source: newsletter" })).toBeVisible();
  await expect(await panel(page, "Tags")).not.toContainText("promo");
  const download = page.waitForEvent("download");
  await page.getByRole("link", { name: "Export CSV" }).click();
  const lines = fs
    .readFileSync(await (await download).path(), "utf8")
    .trim()
    .split(/\r?\n/);
  expect(lines).toHaveLength(4); // header + the 3 clicks on the spring link
  expect(lines.slice(1).every((l) => l.split(",")[1] === spring.code)).toBe(true);
  // a second filter from another panel narrows further
  await (await panel(page, "QR versus link")).getByRole("link", { name: "QR scan" }).click();
  await expect(total(page)).toHaveText("1");
  await page.getByRole("link", { name: "Remove filter Visit: QR scans" }).click();
  await expect(total(page)).toHaveText("3");
});

test("a saved view's share link: signed out, only its figures, not widened by the URL, no other workspace; revoked is 404", async ({
  browser,
}) => {
  await page.setViewportSize(DESKTOP);
  // another workspace of the same user, with a click of its own
  const other = `other-${slug}`.slice(0, 40);
  const owner = await admin("workspace:create", { slug: other, name: "Other", owner: email });
  expect(owner.slug).toBe(other);
  const { key: otherKey } = (await admin("key:create", { slug: other, name: "o" })) as { key: string };
  const secret = (await (
    await page.request.post(`${appUrl}/api/v1/links`, {
      headers: { Authorization: `Bearer ${otherKey}` },
      data: { url: "https://secret-other.example/x?utm_source=newsletter" },
    })
  ).json()) as LinkRow;
  expect((await page.request.get(secret.short, { maxRedirects: 0, headers: { "User-Agent": UA.mac } })).status()).toBe(302);

  await page.goto(`/w/${slug}/analytics?interval=7d&utm_source=newsletter`);
  await page.getByLabel("Name of this view").fill("Newsletter");
  await page.getByRole("button", { name: "Save view" }).click();
  const views = page.getByRole("list", { name: "Saved views" });
  await expect(views.getByRole("link", { name: "Newsletter" })).toBeVisible();
  await views.getByRole("button", { name: "Create share link: Newsletter" }).click();
  shareUrl = await page.getByTestId("share-url").inputValue();
  expect(shareUrl).toMatch(/\/share\/analytics\/[A-Za-z0-9_-]{32}$/);
  const sharePath = new URL(shareUrl).pathname;

  const outside = await browser.newContext({ viewport: DESKTOP });
  try {
    const anon = await outside.newPage();
    for (const viewport of [DESKTOP, PHONE]) {
      await anon.setViewportSize(viewport);
      await anon.goto(sharePath);
      await expect(anon.getByRole("heading", { name: "Newsletter", level: 1 })).toBeVisible();
      await expect(total(anon)).toHaveText("3");
      await expect(anon.locator('meta[name="robots"]')).toHaveAttribute("content", /noindex/);
      await expect(anon.getByRole("navigation", { name: "Workspace" })).toHaveCount(0);
      await expect(anon.getByRole("link", { name: "Export CSV" })).toHaveCount(0);
      await expect(anon.locator("body")).not.toContainText("secret-other.example");
      await expect(anon.locator("body")).not.toContainText("twitter");
      await axe(anon, `share page ${viewport.width}`);
    }
    // query parameters cannot widen the view
    await anon.goto(`${sharePath}?utm_source=twitter&interval=all&bots=include&all=links`);
    await expect(total(anon)).toHaveText("3");
    await expect(anon.locator("body")).not.toContainText("secret-other.example");

    // revoked: 404
    await page.getByRole("button", { name: "Revoke share link: Newsletter" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Revoke link" }).click();
    await expect(views.getByText("shared", { exact: true })).toHaveCount(0, { timeout: 15_000 });
    expect((await anon.request.get(sharePath)).status()).toBe(404);
    expect((await anon.request.get(`/share/analytics/${"x".repeat(32)}`)).status()).toBe(404);
  } finally {
    await outside.close();
  }
});
