import { expect, test, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { admin, appUrl, seriousViolations, signUp } from "./support.ts";

// Quick create on the Links page (C, or pasting an address outside a field), and the link builder
// in two columns, at desktop (1280x800) and phone (390x844) sizes. One Pro workspace (custom codes
// and passwords) with one link whose code is taken, and a Free workspace of the same owner.

const VIEWPORTS = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;
const host = new URL(appUrl).host;

// axe's DOM reads would fill the trace; a failure lists each violation instead
test.use({ trace: "off" });

let signedIn: Awaited<ReturnType<BrowserContext["storageState"]>>;
let slug: string;
let freeSlug: string;
let key: string;
const taken = `taken-${Date.now().toString(36)}`;

test.beforeAll(async ({ browser }) => {
  const page = await browser.newPage();
  const user = await signUp(page);
  slug = user.slug;
  await admin("workspace:plan", { slug, plan: "pro" });
  key = ((await admin("key:create", { slug, name: "spec" })) as { key: string }).key;
  const res = await page.request.post(`${appUrl}/api/v1/links`, {
    headers: { Authorization: `Bearer ${key}` },
    data: { url: "https://example.com/taken", alias: taken, tags: ["spring"] },
  });
  expect(res.status(), await res.text()).toBe(201);
  freeSlug = `free-${Date.now().toString(36)}`;
  await admin("workspace:create", { slug: freeSlug, name: "Free one", owner: user.email, plan: "free" });
  signedIn = await page.context().storageState();
  await page.close();
});

async function open(browser: Browser, viewport: { width: number; height: number }): Promise<Page> {
  const context = await browser.newContext({ storageState: signedIn, viewport, permissions: ["clipboard-read", "clipboard-write"] });
  return context.newPage();
}

/** The Links page with quick create listening (its script loaded and running). */
async function linksPage(page: Page, workspace: string) {
  await page.goto(`/w/${workspace}/links`);
  await page.locator('[data-quick-create="ready"]').waitFor({ state: "attached" });
}

/** Pastes `text` the way a person does: into the clipboard, then Ctrl+V where the focus is. */
async function paste(page: Page, text: string) {
  await page.evaluate((t) => navigator.clipboard.writeText(t), text);
  await page.keyboard.press("ControlOrMeta+V");
}

const clipboard = (page: Page) => page.evaluate(() => navigator.clipboard.readText());

for (const [name, viewport] of Object.entries(VIEWPORTS)) {
  test(`${name}: C, paste and New link open the dialog; a random or taken code is told; create copies the link and highlights its row`, async ({
    browser,
  }) => {
    const page = await open(browser, viewport);
    await linksPage(page, slug);
    const dialog = page.getByRole("dialog", { name: "New link" });
    const search = page.getByLabel("Search links");
    await expect(search).toBeVisible();

    // C opens; Esc closes and gives the focus back to where it was
    await page.getByRole("link", { name: "Import CSV" }).focus();
    await page.keyboard.press("c");
    await expect(dialog).toBeVisible();
    await expect(dialog.getByLabel("Destination URL")).toBeFocused();
    await page.keyboard.press("Escape");
    await expect(dialog).toBeHidden();
    await expect(page.getByRole("link", { name: "Import CSV" })).toBeFocused();

    // the page's "New link" opens the same dialog (a phone has no C key), not the full builder
    await page.getByRole("link", { name: "New link" }).click();
    await expect(dialog).toBeVisible();
    expect(new URL(page.url()).pathname).toBe(`/w/${slug}/links`);
    await page.keyboard.press("Escape");
    await expect(dialog).toBeHidden();
    // the focus is given back when the dialog's close event has run, a moment after it is hidden:
    // a field focused before that would lose the focus to it
    await expect(page.getByRole("link", { name: "New link" })).toBeFocused();

    // C and paste inside a field type, they do not open the dialog
    await search.focus();
    await page.keyboard.press("c");
    await paste(page, "https://example.com/in-the-search");
    await expect(search).toHaveValue("chttps://example.com/in-the-search");
    await expect(dialog).toBeHidden();
    await search.fill("");

    // a paste outside a field opens the dialog with the address filled
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await paste(page, "example.com/spring-offer");
    await expect(dialog).toBeVisible();
    await expect(dialog.getByLabel("Destination URL")).toHaveValue("https://example.com/spring-offer");
    await expect(dialog.getByTestId("plan-line")).toHaveCount(1); // Pro lacks A/B splits

    // live availability: an existing code is taken; Random draws a free one
    const code = dialog.getByLabel("Short code (alias)");
    const status = dialog.getByTestId("code-availability");
    await code.fill(taken);
    await expect(status).toHaveAttribute("data-status", "taken");
    await expect(status).toHaveText("Taken on this domain: choose another code.");
    await expect(dialog.getByTestId("short-prefix")).toHaveText(`${host}/`);

    // tags: an existing one in its colour, and a new one
    const tags = dialog.getByLabel("Tags");
    const newTag = `launch-${name}-${Date.now().toString(36)}`;
    await tags.fill("spr");
    await expect(dialog.getByRole("option", { name: "spring" })).toBeVisible();
    expect(await seriousViolations(page), "dialog open, a taken code, the tag list open").toEqual([]);
    await tags.press("Enter");
    await tags.fill(newTag);
    await expect(dialog.getByRole("option", { name: `Create “${newTag}”` })).toBeVisible();
    await tags.press("Enter");
    await expect(dialog.getByRole("button", { name: "Remove tag spring" })).toBeVisible();
    await expect(dialog.getByRole("button", { name: `Remove tag ${newTag}` })).toBeVisible();

    await dialog.getByRole("button", { name: "Random" }).click();
    await expect(code).toHaveValue(/^[A-Za-z0-9]{7}$/);
    await expect(status).toHaveAttribute("data-status", "free");
    const drawn = await code.inputValue();

    await dialog.getByRole("button", { name: "Create link" }).click();
    await expect(dialog).toBeHidden();
    await expect.poll(() => clipboard(page)).toBe(`${appUrl}/${drawn}`);
    await expect(page).toHaveURL(/[?&]created=\d+/);
    const row = page.locator('[data-highlight="true"]');
    await expect(row).toHaveCount(1);
    await expect(row).toHaveAttribute("aria-current", "true");
    await expect(row).toContainText(drawn);
    // the row lays its tags out once per screen size; the one shown has the new tag
    await expect(row.getByLabel("Tags").filter({ visible: true })).toContainText(newTag);
    await page.context().close();
  });

  test(`${name}: More options expands in place and a password set there is stored; Free shows one quiet plan line`, async ({ browser }) => {
    const page = await open(browser, viewport);
    await linksPage(page, slug);
    const dialog = page.getByRole("dialog", { name: "New link" });
    await expect(page.getByLabel("Search links")).toBeVisible();
    await page.keyboard.press("c");
    await dialog.getByLabel("Destination URL").fill("https://example.com/members-only");
    const more = dialog.getByRole("button", { name: "More options" });
    await expect(more).toHaveAttribute("aria-expanded", "false");
    await more.click();
    await expect(more).toHaveAttribute("aria-expanded", "true");
    // in place: the same dialog, the address still typed, the page not left
    await expect(dialog.getByLabel("Destination URL")).toHaveValue("https://example.com/members-only");
    await expect(page).toHaveURL(new RegExp(`/w/${slug}/links$`));
    await expect(dialog.getByLabel("UTM source")).toBeVisible();
    await expect(dialog.getByLabel("Title", { exact: true })).toBeVisible();
    expect(await seriousViolations(page), "dialog with More options").toEqual([]);
    await dialog.getByLabel("Password", { exact: true }).fill("open sesame");
    await dialog.getByRole("button", { name: "Create link" }).click();
    await expect(dialog).toBeHidden();
    await expect.poll(() => clipboard(page)).toMatch(new RegExp(`^${appUrl}/[A-Za-z0-9]{7}$`));
    const short = await clipboard(page);
    const res = await page.request.get(`${appUrl}/api/v1/links/${short.split("/").pop()}`, { headers: { Authorization: `Bearer ${key}` } });
    expect(res.status()).toBe(200);
    expect(((await res.json()) as { hasPassword: boolean }).hasPassword).toBe(true);

    // Free: one quiet line for everything the plan lacks, no warning per section
    await linksPage(page, freeSlug);
    await expect(page.getByRole("heading", { name: "Links" })).toBeVisible();
    await page.keyboard.press("c");
    await expect(dialog).toBeVisible();
    await dialog.getByRole("button", { name: "More options" }).click();
    await expect(dialog.getByTestId("plan-line")).toHaveCount(1);
    await expect(dialog.getByTestId("plan-line")).toContainText("passwords");
    await expect(dialog.getByText(/not in your plan/)).toHaveCount(0);
    await expect(dialog.getByLabel("Short code (alias)")).toBeDisabled();
    await page.context().close();
  });

  test(`${name}: the link builder: ${name === "desktop" ? "preview and QR beside the fields" : "one column"}, the prefix whole, live availability`, async ({
    browser,
  }) => {
    const page = await open(browser, viewport);
    await page.goto(`/w/${slug}/links/new`);
    const fields = page.getByTestId("builder-fields");
    const card = page.getByTestId("preview-card");
    const qr = page.getByTestId("qr-preview");
    await page.getByLabel("Destination URL").fill("https://example.com/builder");
    await page.getByLabel("Title", { exact: true }).fill("Builder title");
    await expect(card.getByTestId("preview-card-title")).toHaveText("Builder title");
    await page.getByLabel("Short code (alias)").fill(taken);
    await expect(page.getByTestId("code-availability")).toHaveAttribute("data-status", "taken");
    await expect(qr.getByRole("img")).toHaveAttribute("alt", `QR code preview for ${appUrl}/${taken}`);
    expect(await seriousViolations(page), "the builder with a taken code").toEqual([]);

    const prefix = page.getByTestId("short-prefix");
    await expect(prefix).toHaveText(`${host}/`);
    expect(await prefix.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);

    const f = (await fields.boundingBox())!;
    for (const side of [(await card.boundingBox())!, (await qr.boundingBox())!]) {
      if (name === "desktop") {
        expect(side.x).toBeGreaterThanOrEqual(f.x + f.width); // to the right of the fields
        expect(side.y).toBeLessThan(f.y + viewport.height); // beside them, not below
      } else {
        expect(side.y).toBeGreaterThanOrEqual(f.y + f.height); // below the fields
        expect(side.x + side.width).toBeLessThanOrEqual(viewport.width);
      }
    }

    // editing uses the same builder, and its own code is not reported as taken
    await page.goto(`/w/${slug}/links`);
    if (name === "desktop") await page.getByRole("link", { name: `Edit ${host}/${taken}` }).click();
    else {
      // a phone's row has its actions in a menu
      await page.getByRole("button", { name: `Actions for ${host}/${taken}` }).click();
      await page.getByRole("menuitem", { name: "Edit" }).click();
    }
    await expect(page.getByRole("heading", { name: "Edit link" })).toBeVisible();
    await expect(page.getByTestId("builder-preview")).toBeVisible();
    await expect(page.getByLabel("Short code (alias)")).toHaveValue(taken);
    await expect(page.getByTestId("code-availability")).toHaveAttribute("data-status", "idle");
    expect(await seriousViolations(page), "the builder editing a link").toEqual([]);
    await page.context().close();
  });
}
