import fs from "node:fs";
import { expect, test, type BrowserContextOptions, type Page } from "@playwright/test";
import { admin, appUrl, seriousViolations, shot, signUp } from "./support.ts";
import { BROWSER_UA } from "./workspace-seed.ts";

// The QR designer on a link's page (colours, a refused pair, the workspace logo, PNG and SVG of
// what is shown), QR scans shown apart from clicks, the Account page inside the workspace layout,
// and the CSV import's problems in words; at desktop and phone sizes, with axe over each new state.

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const LOGO_COLOUR = "#e11d48";
const LOGO_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="10" height="10" fill="${LOGO_COLOUR}"/></svg>`;

test.use({ trace: "off" });

let slug: string;
let linkId: number;
// the owner's signed-in session, reused by every context (signing in hashes a password each time)
let session: BrowserContextOptions["storageState"];

test.beforeAll(async ({ browser }) => {
  const page = await browser.newPage();
  ({ slug } = await signUp(page));
  await admin("workspace:plan", { slug, plan: "team" }); // bulk import
  const { key } = (await admin("key:create", { slug, name: "qr spec" })) as { key: string };
  const headers = { Authorization: `Bearer ${key}` };
  const created = await page.request.post(`${appUrl}/api/v1/links`, { headers, data: { url: "https://example.com/poster" } });
  expect(created.status(), await created.text()).toBe(201);
  const link = (await created.json()) as { id: number; short: string };
  linkId = link.id;
  // one plain click and one QR scan (the marker the app's codes carry)
  for (const url of [link.short, `${link.short}?qr=1`]) {
    const r = await page.request.get(url, { maxRedirects: 0, headers: { "User-Agent": BROWSER_UA } });
    expect(r.status()).toBe(302);
  }
  // visits are written in batches, about once a second
  await expect
    .poll(async () => ((await (await page.request.get(`${appUrl}/api/v1/analytics`, { headers })).json()) as { clicks: number }).clicks, {
      timeout: 15_000,
    })
    .toBe(2);
  session = await page.context().storageState();
  await page.close();
});

const axe = seriousViolations;

/** The SVG text the QR image shows. */
async function shownSvg(page: Page): Promise<string> {
  const src = (await page.getByTestId("qr-image").getAttribute("src"))!;
  return decodeURIComponent(src.replace(/^data:image\/svg\+xml;charset=utf-8,/, ""));
}

test("QR designer: colours, a refused pair with its reason, the logo, PNG and SVG downloads; scans apart from clicks", async ({
  browser,
}, testInfo) => {
  const context = await browser.newContext({ viewport: DESKTOP, acceptDownloads: true, storageState: session });
  const page = await context.newPage();
  const found: string[] = [];

  // the logo, uploaded by the owner in Settings
  await page.goto(`/w/${slug}/settings`);
  await page.getByLabel("Logo file").setInputFiles({ name: "logo.svg", mimeType: "image/svg+xml", buffer: Buffer.from(LOGO_SVG) });
  await page.getByRole("button", { name: "Upload logo" }).click();
  await expect(page.getByRole("img", { name: "Current QR logo" })).toBeVisible();

  await page.goto(`/w/${slug}/links/${linkId}`);
  // scans and clicks apart
  await expect(page.getByTestId("link-qr-scans")).toHaveText("1");
  await expect(page.getByTestId("link-plain-clicks")).toHaveText("1");

  // the logo is in the centre as soon as it has loaded
  const image = page.getByTestId("qr-image");
  await expect(image).toHaveAttribute("data-logo", "yes");
  expect(await shownSvg(page)).toContain("<image");

  await page.getByRole("button", { name: "Design" }).click();
  const design = page.getByRole("group", { name: "QR design" });
  found.push(...(await axe(page, "designer open")));
  await shot(page, testInfo, "qr-designer");

  // a readable pair is drawn at once
  await design.getByLabel("Code colour", { exact: true }).fill("#1d4ed8");
  await expect.poll(() => shownSvg(page)).toContain('fill="#1d4ed8"');
  // a light code on a dark ground is refused, with the reason, and not drawn
  await design.getByLabel("Background colour", { exact: true }).fill("#000000");
  await expect(page.getByTestId("qr-colour-problem")).toContainText("The code must be darker than its background");
  expect(await shownSvg(page)).toContain('fill="#ffffff"');
  found.push(...(await axe(page, "designer, pair refused")));
  await shot(page, testInfo, "qr-designer-refused");
  // colours too alike: refused with the measured contrast
  await design.getByLabel("Background colour", { exact: true }).fill("#3b82f6");
  await expect(page.getByTestId("qr-colour-problem")).toContainText("too alike");
  await design.getByLabel("Background colour", { exact: true }).fill("#fef3c7");
  await expect(page.getByTestId("qr-colour-problem")).toHaveCount(0);
  await expect.poll(() => shownSvg(page)).toContain('fill="#fef3c7"');
  const shown = await shownSvg(page);

  // the SVG download is exactly what is shown: colours and the logo inside
  const svgDownload = page.waitForEvent("download");
  await page.getByRole("link", { name: "Download SVG" }).click();
  const svgFile = await svgDownload;
  expect(svgFile.suggestedFilename()).toMatch(/^qr-.+\.svg$/);
  const svg = fs.readFileSync((await svgFile.path())!, "utf8");
  expect(svg).toBe(shown);
  expect(svg).toContain('fill="#1d4ed8"');
  expect(svg).toContain('fill="#fef3c7"');
  const logoHref = /<image[^>]*href="data:image\/svg\+xml;base64,([^"]+)"/.exec(svg)![1];
  expect(Buffer.from(logoHref, "base64").toString("utf8")).toContain(LOGO_COLOUR);

  // the PNG: a real PNG of the same design (its corner is the background colour)
  const pngDownload = page.waitForEvent("download");
  await page.getByRole("button", { name: "Download PNG" }).click();
  const pngFile = await pngDownload;
  expect(pngFile.suggestedFilename()).toMatch(/^qr-.+\.png$/);
  const png = fs.readFileSync((await pngFile.path())!);
  expect(png.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe(true);
  expect(png.readUInt32BE(16)).toBe(1024); // width from the IHDR chunk
  const corner = await page.evaluate(async (b64) => {
    const img = new Image();
    img.src = `data:image/png;base64,${b64}`;
    await img.decode();
    const canvas = document.createElement("canvas");
    canvas.width = img.width;
    canvas.height = img.height;
    const ctx = canvas.getContext("2d")!;
    ctx.drawImage(img, 0, 0);
    const at = (x: number, y: number) => [...ctx.getImageData(x, y, 1, 1).data.slice(0, 3)];
    return { corner: at(2, 2), centre: at(img.width / 2, img.height / 2) };
  }, png.toString("base64"));
  expect(corner.corner).toEqual([0xfe, 0xf3, 0xc7]);
  expect(corner.centre).toEqual([0xe1, 0x1d, 0x48]); // the logo

  // without the logo: error correction back to M, no image
  await design.getByLabel("Workspace logo in the centre").uncheck();
  await expect(image).toHaveAttribute("data-logo", "no");
  expect(await shownSvg(page)).not.toContain("<image");

  // the card is as tall as its content, not the column
  const card = page.locator("section", { has: page.getByRole("heading", { name: "QR code" }) });
  const box = (await card.boundingBox())!;
  expect(box.height).toBeLessThan(700);

  await context.close();
  expect(found, found.join("\n")).toEqual([]);
});

test("Account page inside the workspace layout, in sections; /account leads there", async ({ browser }, testInfo) => {
  const found: string[] = [];
  for (const [name, viewport] of [
    ["desktop", DESKTOP],
    ["phone", PHONE],
  ] as const) {
    const context = await browser.newContext({
      viewport,
      storageState: session,
      ...(name === "phone" ? { isMobile: true, hasTouch: true } : {}),
    });
    const page = await context.newPage();
    await page.goto(`/w/${slug}/links`);
    // a phone folds the navigation and the account links behind Menu
    if (name === "phone") await page.getByRole("button", { name: "Menu" }).tap();
    await page.getByRole("link", { name: "Account" }).filter({ visible: true }).first().click();
    await expect(page).toHaveURL(new RegExp(`/w/${slug}/account$`));
    await expect(page.getByRole("heading", { name: "Your account", level: 1 })).toBeVisible();
    // the workspace's own navigation is around it (folded behind Menu on a phone)
    if (name === "phone") await expect(page.getByRole("button", { name: "Menu" })).toBeVisible();
    else await expect(page.getByRole("navigation", { name: "Workspace" })).toBeVisible();
    const sections = page.getByRole("navigation", { name: "Account sections" }).getByRole("link");
    await expect(sections).toHaveText(["Profile and email", "Password", "Second factor", "Sessions", "Delete account"]);
    for (const heading of ["Email address", "Password", "Second factor", "Sessions", "Delete account"])
      await expect(page.getByRole("heading", { name: heading, exact: true })).toBeVisible();
    if (name === "desktop") {
      // a normal content width, not a 230 px column
      const card = (await page.locator("#password").boundingBox())!;
      expect(card.width).toBeGreaterThan(600);
    } else {
      // readable on a phone: nothing wider than the screen
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    }
    found.push(...(await axe(page, `account (${name})`)));
    await shot(page, testInfo, `account-${name}`);

    // /account opens it inside the workspace
    await page.goto("/account");
    await expect(page).toHaveURL(new RegExp(`/w/${slug}/account$`));

    if (name === "phone") {
      // the designer on a phone: the card fits the screen, and axe passes with it open
      await page.goto(`/w/${slug}/links/${linkId}`);
      await page.getByRole("button", { name: "Design" }).click();
      const designer = page.getByRole("group", { name: "QR design" });
      await expect(designer).toBeVisible();
      const box = (await designer.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
      await page.getByRole("group", { name: "QR design" }).getByLabel("Code colour", { exact: true }).fill("#cccccc");
      await expect(page.getByTestId("qr-colour-problem")).toContainText("too alike");
      found.push(...(await axe(page, "designer open, pair refused (phone)")));
      await shot(page, testInfo, "qr-designer-phone");
    }
    await context.close();
  }
  expect(found, found.join("\n")).toEqual([]);
});

test("import problems read in words", async ({ browser }, testInfo) => {
  const found: string[] = [];
  for (const [name, viewport] of [
    ["desktop", DESKTOP],
    ["phone", PHONE],
  ] as const) {
    const context = await browser.newContext({ viewport, storageState: session });
    const page = await context.newPage();
    await page.goto(`/w/${slug}/links/import`);
    const csv = "url,title\r\nhttps://example.com/ok,Fine\r\n,No destination\r\nftp://files.example,Old server\r\n";
    await page.locator('input[type="file"]').setInputFiles({ name: "links.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
    await expect(page.getByText("Row 2: the URL is missing")).toBeVisible();
    await expect(page.getByText("Row 3: 'ftp://files.example' is not a web address (use http or https)")).toBeVisible();
    await expect(page.getByText(/Invalid input|expected string/)).toHaveCount(0);
    found.push(...(await axe(page, `import problems (${name})`)));
    await shot(page, testInfo, `import-problems-${name}`);
    await context.close();
  }
  expect(found, found.join("\n")).toEqual([]);
});
