import { expect, test, type Page } from "@playwright/test";
import { startReceiver } from "../support/https-receiver.ts";
import { admin, appUrl, seriousViolations, shot, signUp, testCa } from "./support.ts";

// link.clicked on the Developers page: subscribe an endpoint (a real HTTPS receiver on loopback) to
// the clicks of one folder, click a link of that folder and of another, see the one delivery. Then
// the receiver stops answering and a burst of clicks outruns the endpoint's rate: the clicks still
// behind its cursor show on the backlog line of the Developers page and of the endpoint's page.

const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:126.0) Gecko/20100101 Firefox/126.0";

/** The critical and serious axe violations on the page as it is now (desktop 1280x800, then phone 390x844). */
async function axeAtBothSizes(page: Page): Promise<string[]> {
  const found: string[] = [];
  for (const size of [
    { width: 1280, height: 800 },
    { width: 390, height: 844 },
  ]) {
    await page.setViewportSize(size);
    found.push(...(await seriousViolations(page, `${size.width}x${size.height}`)));
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  return found;
}

test("subscribe an endpoint to link.clicked for one folder, click a link of it, see the delivery in the log", async ({
  page,
}, testInfo) => {
  let hang = false;
  const receiver = await startReceiver({
    tls: testCa().issue(["localhost"]),
    respond: () => (hang ? { hang: true } : { status: 200, body: "ok" }),
  });
  try {
    const { slug } = await signUp(page);
    await admin("workspace:plan", { slug, plan: "team" });
    const { key } = (await admin("key:create", { slug, name: "Test client" })) as { key: string };
    const make = async (code: string, folder: string) => {
      const r = await page.request.post(`${appUrl}/api/v1/links`, {
        headers: { Authorization: `Bearer ${key}` },
        data: { url: `https://example.com/${code}`, folder },
      });
      expect(r.status()).toBe(201);
      return (await r.json()) as { code: string; short: string };
    };
    const inFolder = await make("in", "campaigns/spring");
    const elsewhere = await make("out", "other");

    await page.goto(`/w/${slug}/developers`);
    await page.getByRole("button", { name: "Add endpoint" }).click();
    const dialog = page.getByRole("dialog", { name: "Add a webhook endpoint" });
    await dialog.getByLabel("Endpoint URL").fill(receiver.url("127.0.0.1", "/clicks"));
    await expect(dialog.getByText('"All events" does not include link.clicked')).toBeVisible();
    await dialog.getByLabel("Only the selected events").check();
    await dialog.getByLabel("link.created").check();
    await dialog.getByRole("checkbox", { name: /link\.clicked/ }).check();
    await dialog.getByLabel("Some folders (and their subfolders)").check();
    await dialog.getByPlaceholder(/Folder paths/).fill("campaigns");
    await shot(page, testInfo, "developers-link-clicked");
    await dialog.getByRole("button", { name: "Add endpoint" }).click();
    await expect(page).toHaveURL(new RegExp(`/w/${slug}/developers/\\d+$`));

    for (const link of [inFolder, elsewhere]) {
      const r = await page.request.get(link.short, { maxRedirects: 0, headers: { "User-Agent": FIREFOX } });
      expect(r.status()).toBe(302);
    }
    await expect.poll(() => receiver.requests.filter((r) => r.path === "/clicks").length, { timeout: 20_000 }).toBe(1);
    const body = JSON.parse(receiver.requests.find((r) => r.path === "/clicks")!.raw.toString("utf8"));
    expect(body).toMatchObject({ type: "link.clicked", data: { link: { code: inFolder.code, folder: "campaigns/spring" } } });

    const delivery = page.getByRole("list", { name: "Deliveries" }).getByTestId("delivery").first();
    await expect(async () => {
      await page.reload();
      await expect(delivery.getByText("delivered", { exact: true })).toBeVisible({ timeout: 1000 });
    }).toPass({ timeout: 20_000 });
    await expect(delivery.getByText("link.clicked")).toBeVisible();
    await shot(page, testInfo, "developers-link-clicked-log");

    // The receiver stops answering: a second's worth of the plan's rate (50 on Team) is written as
    // deliveries that wait on it, the rest of a burst of 300 clicks stays behind the cursor, counted.
    hang = true;
    const endpointPath = new URL(page.url()).pathname;
    for (let i = 0; i < 300; i += 25)
      await Promise.all(
        Array.from({ length: 25 }, () => page.request.get(inFolder.short, { maxRedirects: 0, headers: { "User-Agent": FIREFOX } })),
      );
    const clicksLine = page.getByTestId("endpoint-click-backlog");
    await expect(async () => {
      await page.goto(`/w/${slug}/developers`);
      await expect(clicksLine).toHaveText(/^Backlog: [\d,]+ clicks? not yet delivered, the oldest from \d+ s ago/, { timeout: 1000 });
    }).toPass({ timeout: 20_000 });
    expect(await axeAtBothSizes(page)).toEqual([]);
    await shot(page, testInfo, "developers-link-clicked-backlog");
    await page.goto(endpointPath);
    await expect(clicksLine).toHaveText(/^Backlog: [\d,]+ clicks? not yet delivered/);
    expect(await axeAtBothSizes(page)).toEqual([]);
  } finally {
    await receiver.stop();
  }
});
