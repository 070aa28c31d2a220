import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { admin, appUrl, PASSWORD, seriousViolations, uniqueEmail } from "./support.ts";
import { BROWSER_UA, signIn } from "./workspace-seed.ts";

// The Links list built for campaigns (issue 36, items 3 and 6): sorts, counted pages with a page
// size, the bulk actions, the keyboard shortcuts and their "?" list, coloured tag chips beside whole
// titles, and the phone layout (one-line rows with an actions menu, the first row in the top third).
// One workspace, seeded once: 30 links in the folder "campaign" (aliases c00..c29, created in that
// order), c05 clicked three times, then c07 once (so c07 was clicked last). Tests that change links
// make their own in other folders.

let slug = "";
let email = "";
let key = "";
const run = Math.random().toString(36).slice(2, 6);
const alias = (i: number) => `c${run}${String(i).padStart(2, "0")}`;

async function api(request: APIRequestContext, method: "post" | "get", path: string, data?: unknown) {
  const res = await request[method](`${appUrl}/api/v1${path}`, { headers: { Authorization: `Bearer ${key}` }, data });
  expect(res.status(), await res.text()).toBeLessThan(300);
  return res.json();
}

async function visit(request: APIRequestContext, i: number, times: number) {
  for (let n = 0; n < times; n++) {
    const r = await request.get(`${appUrl}/${alias(i)}`, { maxRedirects: 0, headers: { "User-Agent": BROWSER_UA } });
    expect(r.status()).toBe(302);
  }
  // clicks are written in batches, about once a second
  await expect.poll(async () => (await api(request, "get", `/links/${alias(i)}`)).clicks, { timeout: 15_000 }).toBe(times);
}

test.beforeAll(async ({ browser }) => {
  const page = await browser.newPage();
  // made by the admin CLI: a verified address, so no "verify your email" notice takes the phone's top
  email = uniqueEmail("power");
  slug = `power-${run}`;
  await admin("user:create", { email, password: PASSWORD, name: "Pat Power" });
  await admin("workspace:create", { slug, name: "Campaigns", owner: email, plan: "team" });
  key = ((await admin("key:create", { slug, name: "Seed" })) as { key: string }).key;
  await api(page.request, "post", "/tags", { name: "spring", color: "green" });
  await api(page.request, "post", "/tags", { name: "newsletter", color: "blue" });
  await api(page.request, "post", "/tags", { name: "paid", color: "orange" });
  const links = Array.from({ length: 30 }, (_, i) => ({
    url: `https://shop.example.com/campaigns/spring/landing-page-${i}?utm_source=newsletter`,
    alias: alias(i),
    folder: "campaign",
    title: i % 3 === 0 ? `Product launch for the spring collection, part ${i}` : `Spring ${i}`,
    tags: i % 3 === 0 ? ["spring", "newsletter", "paid"] : ["spring"],
  }));
  const { results } = await api(page.request, "post", "/links/bulk", { links });
  expect(results.every((r: { status: number }) => r.status === 201)).toBe(true);
  await visit(page.request, 5, 3);
  await visit(page.request, 7, 1);
  await page.close();
});

async function open(page: Page, query = "folder=campaign") {
  await signIn(page, email, `/w/${slug}/links?${query}`);
  await expect(page.getByRole("heading", { name: "Links", level: 1 })).toBeVisible();
}

const rows = (page: Page) => page.getByRole("list", { name: "Links" }).getByRole("listitem");
/** the codes of the rows shown, in order */
const shownCodes = (page: Page) =>
  rows(page).evaluateAll((els) => els.map((el) => el.querySelector("[data-short-link]")?.textContent?.split("/").pop()));

async function axe(page: Page, what: string) {
  const bad = await seriousViolations(page, what);
  expect(bad, bad.join("\n")).toEqual([]);
}

test.describe("desktop", () => {
  test.use({ viewport: { width: 1280, height: 800 } });

  test("sorts by created, clicks and last click, both ways; the sort is in the URL and survives a reload", async ({ page }) => {
    await open(page);
    await expect.poll(() => shownCodes(page)).toHaveLength(25);
    expect((await shownCodes(page))[0]).toBe(alias(29));
    const sort = page.getByRole("combobox", { name: "Sort links" });
    const expectFirst = async (label: string, codes: string[], url: RegExp) => {
      await sort.selectOption({ label });
      await expect(page).toHaveURL(url);
      await expect.poll(async () => (await shownCodes(page)).slice(0, codes.length)).toEqual(codes);
    };
    await expectFirst("Oldest first", [alias(0), alias(1)], /sort=created&order=asc|order=asc/);
    await expectFirst("Most clicks", [alias(5), alias(7), alias(29)], /sort=clicks/);
    await expectFirst("Fewest clicks", [alias(0), alias(1)], /sort=clicks&order=asc/);
    await expectFirst("Clicked most recently", [alias(7), alias(5), alias(29)], /sort=lastClick/);
    await expect(page.getByText("Last click", { exact: true })).toBeVisible();
    await expectFirst("Clicked longest ago", [alias(0), alias(1)], /sort=lastClick&order=asc/);
    await expectFirst("Newest first", [alias(29), alias(28)], /^(?!.*sort=)/);

    await sort.selectOption({ label: "Most clicks" });
    await expect(page).toHaveURL(/sort=clicks/);
    await page.reload();
    await expect(sort).toHaveValue("clicks-desc");
    expect((await shownCodes(page)).slice(0, 2)).toEqual([alias(5), alias(7)]);
  });

  test("counted pages: 1–25 of 30, page 2, previous and next, 50 per page; the page is in the URL", async ({ page }) => {
    await open(page);
    const range = page.getByTestId("list-range");
    await expect(range).toHaveText("1–25 of 30");
    await expect(page.getByRole("button", { name: "Previous" })).toBeDisabled();
    await page.getByRole("navigation", { name: "Pages" }).getByRole("button", { name: "Page 2" }).click();
    await expect(range).toHaveText("26–30 of 30");
    await expect(rows(page)).toHaveCount(5);
    await expect(page).toHaveURL(/page=2/);
    await expect(page.getByRole("button", { name: "Next" })).toBeDisabled();
    await page.reload();
    await expect(range).toHaveText("26–30 of 30");
    await page.getByRole("button", { name: "Previous" }).click();
    await expect(range).toHaveText("1–25 of 30");
    await page.getByLabel("Per page").selectOption("50");
    await expect(range).toHaveText("1–30 of 30");
    await expect(rows(page)).toHaveCount(30);
    await expect(page).toHaveURL(/size=50/);
    await expect(page.getByRole("button", { name: "Page 2" })).toHaveCount(0);
  });

  test("bulk: deactivate, activate, move, set and clear expiry, delete (the confirmation names the count)", async ({ page }) => {
    const made: string[] = [];
    for (let i = 0; i < 4; i++)
      made.push((await api(page.request, "post", "/links", { url: `https://example.com/bulk-${i}`, folder: "bulk" })).code);
    await open(page, "folder=bulk");
    await expect(rows(page)).toHaveCount(4);
    const select = async (n: number) => {
      for (let i = 0; i < n; i++) await rows(page).nth(i).getByRole("checkbox").check();
      await expect(page.getByRole("region", { name: "Selected links" })).toContainText(`${n} selected`);
    };
    const toast = (text: string) => expect(page.getByRole("status").filter({ hasText: text })).toBeVisible();
    const bar = page.getByRole("region", { name: "Selected links" });

    await select(3);
    await bar.getByRole("button", { name: "Deactivate" }).click();
    await toast("3 links deactivated");
    await expect(page.getByText("Inactive", { exact: true }).filter({ visible: true })).toHaveCount(3);
    await select(3);
    await bar.getByRole("button", { name: "Activate", exact: true }).click();
    await toast("3 links activated");
    await expect(page.getByText("Inactive", { exact: true }).filter({ visible: true })).toHaveCount(0);

    await select(2);
    await bar.getByRole("button", { name: "Set expiry…" }).click();
    const expiryDialog = page.getByRole("dialog", { name: "Set the expiry of 2 links" });
    await expiryDialog.getByLabel("Expires at (your time)").fill("2099-06-01T12:00");
    await expiryDialog.getByRole("button", { name: "Set expiry" }).click();
    await toast("Expiry set on 2 links");
    expect((await api(page.request, "get", `/links/${made[3]}`)).expiresOn).toBeGreaterThan(4_000_000_000);
    await select(4);
    await bar.getByRole("button", { name: "Clear expiry" }).click();
    await toast("Expiry cleared on 2 links");

    await select(2);
    await bar.getByRole("button", { name: "Move to folder…" }).click();
    const moveDialog = page.getByRole("dialog", { name: "Move 2 links to a folder" });
    await moveDialog.getByLabel("Folder").fill("bulk/moved");
    await moveDialog.getByRole("button", { name: "Move 2 links" }).click();
    await toast("2 links moved to “bulk/moved”");
    await expect(page.getByRole("navigation", { name: "Folders" }).getByRole("link", { name: /moved/ })).toBeVisible();

    await select(3);
    await bar.getByRole("button", { name: "Delete…" }).click();
    const confirm = page.getByRole("dialog", { name: "Delete 3 links?" });
    await expect(confirm).toBeVisible();
    await axe(page, "bulk delete confirmation");
    await confirm.getByRole("button", { name: "Delete 3 links" }).click();
    await toast("3 links deleted");
    await expect(rows(page)).toHaveCount(1);
    await expect(page.getByTestId("list-range")).toHaveText("1–1 of 1");
  });

  test("keyboard: / searches, J/K move the cursor, X selects, Esc clears, Enter opens, ? lists them all", async ({ page }) => {
    await open(page);
    await expect(rows(page)).toHaveCount(25);
    await page.keyboard.press("/");
    const search = page.getByRole("searchbox", { name: "Search links" });
    await expect(search).toBeFocused();
    // typing in a field is typing, not a shortcut
    await page.keyboard.type("jk");
    await expect(page.locator("[data-current]")).toHaveCount(0);
    await expect(page.getByText("No links match")).toBeVisible();
    await search.fill("");
    await search.blur();
    await expect(rows(page)).toHaveCount(25);

    await page.keyboard.press("j");
    await expect(rows(page).nth(0)).toHaveAttribute("data-current", "true");
    expect(
      await rows(page)
        .nth(0)
        .evaluate((el) => getComputedStyle(el).outlineStyle),
    ).toBe("solid");
    await page.keyboard.press("j");
    await expect(rows(page).nth(1)).toHaveAttribute("data-current", "true");
    await page.keyboard.press("k");
    await expect(rows(page).nth(0)).toHaveAttribute("data-current", "true");
    // with a modifier nothing happens
    await page.keyboard.press("Alt+j");
    await expect(rows(page).nth(0)).toHaveAttribute("data-current", "true");

    await page.keyboard.press("x");
    await expect(rows(page).nth(0).getByRole("checkbox")).toBeChecked();
    await expect(page.getByRole("region", { name: "Selected links" })).toContainText("1 selected");
    await page.keyboard.press("Escape");
    await expect(page.getByRole("region", { name: "Selected links" })).toHaveCount(0);
    await expect(page.locator("[data-current]")).toHaveCount(0);

    await page.keyboard.press("?");
    const help = page.getByRole("dialog", { name: "Keyboard shortcuts" });
    await expect(help).toBeVisible();
    for (const what of [
      "Create a link",
      "Search links",
      "Move down the list",
      "Move up the list",
      "Select or unselect the link",
      "Open the link",
    ])
      await expect(help.getByText(what)).toBeVisible();
    await expect(help.locator("kbd", { hasText: /^C$/ })).toBeVisible();
    await axe(page, "shortcuts dialog");
    await page.keyboard.press("Escape");
    await expect(help).toBeHidden();

    await page.keyboard.press("j");
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/\/links\/\d+$/);
    await expect(page.getByRole("heading", { level: 1 })).toContainText(alias(29));
  });

  test("tags are chips in their colour, on the second line; the title is cut only by the row's width, never for tags", async ({ page }) => {
    await open(page);
    const row = rows(page).filter({ hasText: alias(27) });
    const chip = (name: string) => row.locator(`[data-tag="${name}"]`).filter({ visible: true });
    await expect(chip("spring")).toHaveClass(/bg-green-50/);
    await expect(chip("newsletter")).toHaveClass(/bg-blue-50/);
    await expect(chip("paid")).toHaveClass(/bg-orange-50/);
    const title = row.locator("[data-title]");
    await expect(title).toHaveText("Product launch for the spring collection, part 27");
    // a long title takes the rest of its line up to the row's link column (nothing sits after it)
    const room = await title.evaluate((el) => ({
      right: el.getBoundingClientRect().right,
      columnRight: el.parentElement!.parentElement!.getBoundingClientRect().right,
      cut: el.scrollWidth > el.clientWidth,
    }));
    expect(room.cut && room.columnRight - room.right > 2, "the title is cut before the row's end").toBe(false);
    // a short title is whole
    const short = rows(page)
      .filter({ hasText: alias(28) })
      .locator("[data-title]");
    await expect(short).toHaveText("Spring 28");
    expect(await short.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    const [titleBox, tagBox] = [await title.boundingBox(), await chip("spring").boundingBox()];
    expect(tagBox!.y).toBeGreaterThan(titleBox!.y + titleBox!.height - 2);
  });
});

test.describe("phone", () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

  test("one-line rows from the top third, chips whole, the actions menu copies, opens, edits and deletes", async ({ page, context }) => {
    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    await open(page);
    const first = rows(page).first();
    await expect(first).toBeVisible();
    expect((await first.boundingBox())!.y, "the first link starts below the top third").toBeLessThan(281);
    for (const box of await rows(page).evaluateAll((els) => els.map((el) => el.getBoundingClientRect().height)))
      expect(box, "a row is taller than two short lines").toBeLessThan(64);
    // every chip shown is whole inside its row; the rest are "+N"
    const chips = await rows(page).evaluateAll((els) =>
      els.flatMap((row) => {
        const r = row.getBoundingClientRect();
        return [...row.querySelectorAll<HTMLElement>("[data-tag]")]
          .filter((c) => c.offsetParent !== null)
          .map((c) => {
            const b = c.getBoundingClientRect();
            return { inside: b.left >= r.left && b.right <= r.right && b.top >= r.top && b.bottom <= r.bottom, tag: c.dataset.tag };
          });
      }),
    );
    expect(chips.length).toBeGreaterThan(0);
    expect(chips.filter((c) => !c.inside)).toEqual([]);
    await expect(
      rows(page)
        .filter({ hasText: alias(27) })
        .locator("[data-more-tags]")
        .last(),
    ).toHaveText("+2");
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);

    // the actions menu
    const menuButton = page.getByRole("button", { name: `Actions for localhost:${new URL(appUrl).port}/${alias(29)}` });
    await menuButton.tap();
    const menu = page.getByRole("menu");
    await expect(menu.getByRole("menuitem")).toHaveText(["Copy short link", "Open", "Edit", "Delete"]);
    await axe(page, "phone list with the actions menu open");
    await menu.getByRole("menuitem", { name: "Copy short link" }).tap();
    await expect(page.getByRole("status").filter({ hasText: "Short URL copied" })).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`${appUrl}/${alias(29)}`);
    await menuButton.tap();
    await page.getByRole("menuitem", { name: "Edit" }).tap();
    await expect(page.getByRole("heading", { name: "Edit link" })).toBeVisible();
    await page.goBack();
    await menuButton.tap();
    await page.getByRole("menuitem", { name: "Open" }).tap();
    await expect(page.getByRole("heading", { level: 1 })).toContainText(alias(29));

    // delete through the menu, on a link of its own
    const { code } = await api(page.request, "post", "/links", { url: "https://example.com/phone-delete", folder: "phone" });
    await page.goto(`/w/${slug}/links?folder=phone`);
    await page.getByRole("button", { name: new RegExp(`Actions for .*/${code}$`) }).tap();
    await page.getByRole("menuitem", { name: "Delete" }).tap();
    const dialog = page.getByRole("dialog", { name: "Delete this link?" });
    await dialog.getByRole("button", { name: "Delete link" }).tap();
    await expect(page.getByRole("status").filter({ hasText: `Deleted` })).toBeVisible();
    await expect(rows(page)).toHaveCount(0);
  });

  test("the header and navigation fold behind Menu", async ({ page }) => {
    await open(page);
    const nav = page.getByRole("navigation", { name: "Workspace" });
    await expect(nav).toBeHidden();
    await page.getByRole("button", { name: "Menu" }).tap();
    await expect(nav.getByRole("link", { name: "Analytics" })).toBeVisible();
    await nav.getByRole("link", { name: "Analytics" }).tap();
    await expect(page).toHaveURL(/\/analytics/);
    await expect(nav).toBeHidden();
  });
});
