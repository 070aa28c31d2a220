import { expect, request, test, type Page } from "@playwright/test";
import { startReceiver } from "../support/https-receiver.ts";
import { admin, seriousViolations, signUp, testCa } from "./support.ts";

// Link routing in the link form (issue 35): the rules with their "what would this visitor get"
// tester, the A/B split editor and its per-variant figures after real visits, the preview card
// while typing and "Fetch from destination" from a loopback HTTPS page (the e2e server runs with
// WEBHOOK_ALLOW_PRIVATE=1, as for webhooks), axe over the form, and the editor on a phone.

const BROWSER_UA = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:126.0) Gecko/20100101 Firefox/126.0";

async function teamWorkspace(page: Page): Promise<string> {
  const { slug } = await signUp(page);
  await admin("workspace:plan", { slug, plan: "team" });
  return slug;
}

test("rules: add two, test a visitor matching the second, reorder and see the answer change", async ({ page }) => {
  const slug = await teamWorkspace(page);
  await page.goto(`/w/${slug}/links/new`);
  await page.getByLabel("Destination URL").fill("https://example.com/home");

  const rules = page.getByTestId("routing-rules");
  await rules.getByRole("button", { name: "Add rule" }).click();
  await rules.getByLabel("Rule 1 URL").fill("https://example.com/de");
  await rules.getByLabel("Rule 1 countries").fill("DE, AT");
  await rules.getByRole("button", { name: "Add rule" }).click();
  await rules.getByLabel("Rule 2 URL").fill("https://example.com/mail");
  await rules.getByLabel("Rule 2 query").fill("ref=mail");

  const tester = page.getByTestId("rule-tester");
  const result = page.getByTestId("tester-result");
  await tester.getByLabel("Country").fill("FR");
  await tester.getByLabel("Query").fill("ref=mail");
  await tester.getByRole("button", { name: "Test visitor" }).click();
  await expect(result).toHaveText("Goes to https://example.com/mail (rule 2)");

  // A visitor from Germany with ref=mail matches both: the first rule wins...
  await tester.getByLabel("Country").fill("DE");
  await tester.getByRole("button", { name: "Test visitor" }).click();
  await expect(result).toHaveText("Goes to https://example.com/de (rule 1)");
  // ...until the mail rule is moved up.
  await rules.getByRole("button", { name: "Move rule 2 up" }).click();
  await expect(rules.getByLabel("Rule 1 URL")).toHaveValue("https://example.com/mail");
  await tester.getByRole("button", { name: "Test visitor" }).click();
  await expect(result).toHaveText("Goes to https://example.com/mail (rule 1)");
  // Nobody matching: the destination.
  await tester.getByLabel("Country").fill("");
  await tester.getByLabel("Query").fill("");
  await tester.getByRole("button", { name: "Test visitor" }).click();
  await expect(result).toHaveText("Goes to https://example.com/home (the destination URL)");

  // axe over the form with every routing section open (rules, a split, the preview card)
  await page.getByTestId("routing-variants").getByRole("button", { name: "Split traffic" }).click();
  const bad = await seriousViolations(page);
  expect(bad, bad.join("\n")).toEqual([]);
  await page.getByTestId("routing-variants").getByRole("button", { name: "Stop splitting" }).click();

  // Saved, the rules reach the redirect in their new order.
  await page.getByRole("button", { name: "Create link" }).click();
  await expect(page).toHaveURL(new RegExp(`/w/${slug}/links/\\d+$`));
  const short = (await page.getByRole("heading", { level: 1 }).textContent())!.trim();
  const visit = await page.request.get(`http://${short}?ref=mail`, { maxRedirects: 0, headers: { "User-Agent": BROWSER_UA } });
  expect(visit.headers()["location"]).toBe("https://example.com/mail");
});

test("A/B split: a third variant keeps the sum at 100, saved and reloaded; figures per variant after visits", async ({ page }) => {
  const slug = await teamWorkspace(page);
  await page.goto(`/w/${slug}/links/new`);
  await page.getByLabel("Destination URL").fill("https://example.com/a");
  const split = page.getByTestId("routing-variants");
  await split.getByRole("button", { name: "Split traffic" }).click();
  await expect(split.getByLabel("URL of variant 1")).toHaveValue("https://example.com/a");
  await split.getByLabel("URL of variant 2").fill("https://example.com/b");
  await expect(split.getByTestId("variant-total")).toHaveText("Total: 100%");

  await split.getByRole("button", { name: "Add variant" }).click();
  await split.getByLabel("URL of variant 3").fill("https://example.com/c");
  const weights = () =>
    Promise.all([1, 2, 3].map(async (i) => Number(await split.getByLabel(`Weight of variant ${i} (percent)`).inputValue())));
  expect(await weights()).toEqual([34, 33, 33]);
  await split.getByLabel("Weight of variant 1 (percent)").fill("50");
  await expect(split.getByLabel("Weight of variant 1 (percent)")).toHaveValue("50");
  expect((await weights()).reduce((s, w) => s + w, 0)).toBe(100);
  await expect(split.getByTestId("variant-total")).toHaveText("Total: 100%");
  const saved = await weights();

  await page.getByRole("button", { name: "Create link" }).click();
  await expect(page).toHaveURL(new RegExp(`/w/${slug}/links/\\d+$`));
  const linkUrl = page.url();
  const short = (await page.getByRole("heading", { level: 1 }).textContent())!.trim();

  await page.goto(`${linkUrl}/edit`);
  await expect(split.getByTestId("variant-row")).toHaveCount(3);
  for (const [i, url] of ["https://example.com/a", "https://example.com/b", "https://example.com/c"].entries()) {
    await expect(split.getByLabel(`URL of variant ${i + 1}`)).toHaveValue(url);
  }
  expect(await weights()).toEqual(saved);

  // Real visits, each a new visitor (its own cookie jar), counted per destination.
  const VISITS = 6;
  for (let i = 0; i < VISITS; i++) {
    const visitor = await request.newContext({ extraHTTPHeaders: { "User-Agent": BROWSER_UA } });
    const r = await visitor.get(`http://${short}`, { maxRedirects: 0 });
    expect(r.status()).toBe(302);
    expect(["https://example.com/a", "https://example.com/b", "https://example.com/c"]).toContain(r.headers()["location"]);
    await visitor.dispose();
  }
  await page.goto(linkUrl);
  const figures = page.getByTestId("variant-figure");
  await expect(async () => {
    await page.reload();
    await expect(figures).toHaveCount(3, { timeout: 1_000 });
    const clicks = await figures.evaluateAll((rows) => rows.map((r) => Number(r.querySelectorAll("td")[2].textContent)));
    expect(clicks.reduce((s, c) => s + c, 0)).toBe(VISITS);
  }).toPass({ timeout: 20_000 });
  await expect(page.getByRole("table", { name: "Clicks and visitors per variant" })).toContainText("https://example.com/c");
});

test("preview card: updates while typing; Fetch from destination fills it from the page's Open Graph tags", async ({ page }) => {
  const html = `<!doctype html><html><head><title>Plain title</title>
    <meta property="og:title" content="Spring &amp; sale">
    <meta property="og:description" content="Everything half price this week.">
    <meta property="og:image" content="https://cdn.example.com/spring.png">
    </head><body><meta property="og:title" content="not in head"></body></html>`;
  const page1 = await startReceiver({
    tls: testCa().issue(["localhost"]),
    respond: () => ({ status: 200, headers: { "content-type": "text/html; charset=utf-8" }, body: html }),
  });
  try {
    const slug = await teamWorkspace(page);
    await page.goto(`/w/${slug}/links/new`);
    await page.getByLabel("Destination URL").fill(page1.url("127.0.0.1", "/spring"));
    const section = page.getByTestId("routing-preview");
    const card = page.getByTestId("preview-card");
    await section.getByLabel("Preview title").fill("Typed title");
    await expect(card.getByTestId("preview-card-title")).toHaveText("Typed title");
    await section.getByLabel("Preview description").fill("Typed description");
    await expect(card.getByTestId("preview-card-description")).toHaveText("Typed description");

    await section.getByRole("button", { name: "Fetch from destination" }).click();
    await expect(section.getByLabel("Preview title")).toHaveValue("Spring & sale");
    await expect(section.getByLabel("Preview description")).toHaveValue("Everything half price this week.");
    await expect(section.getByLabel("Preview image URL")).toHaveValue("https://cdn.example.com/spring.png");
    await expect(card.getByTestId("preview-card-title")).toHaveText("Spring & sale");
    expect(page1.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /spring"]);

    await page.getByRole("button", { name: "Create link" }).click();
    await expect(page).toHaveURL(new RegExp(`/w/${slug}/links/\\d+$`));
    await page.getByRole("link", { name: "Edit", exact: true }).click();
    await expect(page.getByTestId("routing-preview").getByLabel("Preview title")).toHaveValue("Spring & sale");
  } finally {
    await page1.stop();
  }
});

test("phone: the routing editor fits the screen", async ({ browser }) => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  const slug = await teamWorkspace(page);
  await page.goto(`/w/${slug}/links/new`);
  await page.getByLabel("Destination URL").fill("https://example.com/a");
  await page.getByTestId("routing-rules").getByRole("button", { name: "Add rule" }).click();
  await page.getByTestId("routing-variants").getByRole("button", { name: "Split traffic" }).click();
  for (const id of ["routing-rules", "routing-variants", "routing-forwarding", "routing-preview"]) {
    const box = (await page.getByTestId(id).boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width, id).toBeLessThanOrEqual(390);
  }
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  await context.close();
});
