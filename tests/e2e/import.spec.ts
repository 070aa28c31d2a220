import fs from "node:fs";
import { expect, test } from "@playwright/test";
import { parseCsv } from "../../lib/csv/index.ts";
import { startReceiver } from "../support/https-receiver.ts";
import { admin, shot, signUp, testCa } from "./support.ts";

// A 250-row CSV import through the browser: preview, progress, per-row results, the results file,
// and exactly three link.bulk_created events (one per chunk of at most 100 rows, batch 1/3, 2/3, 3/3)
// and no link.created at all, received by a real HTTPS webhook endpoint on loopback subscribed to
// every event type.

type Received = { id: string; type: string; data: { links: { code: string; url: string }[]; batch: { index: number; count: number } } };

test("import 250 links from a CSV file", async ({ page }, testInfo) => {
  const received = new Map<string, Received>();
  const receiver = await startReceiver({
    tls: testCa().issue(["localhost"]),
    respond: (req) => {
      received.set(String(req.headers["service-delivery"]), JSON.parse(req.raw.toString("utf8")) as Received);
      return { status: 200, body: "ok" };
    },
  });
  const hookUrl = receiver.url();

  try {
    const { slug } = await signUp(page);
    // The free plan has no bulk import: the page says so.
    await page.goto(`/w/${slug}/links/import`);
    await expect(page.getByText("Bulk import is not included in the Free plan")).toBeVisible();
    await shot(page, testInfo, "import-upgrade");

    await admin("workspace:plan", { slug, plan: "team" });
    // Every event type: a link.created per imported link would be seen.
    const endpoint = await admin("webhook:create", { slug, url: hookUrl, events: "all" });
    expect(endpoint.events).toBe("all");

    const tag = Date.now().toString(36);
    const lines = ["url,alias,title,folder,notes"];
    for (let i = 1; i <= 250; i++) {
      let url = `https://example.com/product/${i}?utm=${tag}`;
      let alias = "";
      if (i === 10 || i === 150) url = `ftp://example.com/${i}`; // refused: not http(s)
      if (i === 5 || i === 6) alias = `dup-${tag}`; // row 6 reuses row 5's alias
      lines.push(`${url},${alias},"Product ${i}, imported",imports/${tag},"Row ""${i}"""`);
    }
    const csv = lines.join("\r\n") + "\r\n";

    await page.goto(`/w/${slug}/links`);
    await page.getByRole("link", { name: "Import a CSV" }).click();
    await expect(page.getByRole("heading", { name: "Import links from CSV" })).toBeVisible();
    await shot(page, testInfo, "import-start");

    await page.locator('input[type="file"]').setInputFiles({ name: "products.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
    await expect(page.getByTestId("import-preview-summary")).toHaveText(
      "250 rows: 248 ready to import, 2 with problems (reported in the results, not imported).",
    );
    await expect(page.getByRole("cell", { name: "Product 1, imported" })).toBeVisible();
    // The API's own rules, already in the preview.
    await expect(page.getByRole("row", { name: /^10 / })).toContainText(
      "Row 10: 'ftp://example.com/10' is not a web address (use http or https)",
    );
    await shot(page, testInfo, "import-preview");

    // Record every value the progress bar takes.
    await page.evaluate(() => {
      const w = window as unknown as { __progress: string[] };
      w.__progress = [];
      new MutationObserver(() => {
        const bar = document.querySelector('[role="progressbar"][aria-label="Import progress"]');
        const v = bar?.getAttribute("aria-valuenow");
        if (v && w.__progress[w.__progress.length - 1] !== v) w.__progress.push(v);
      }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["aria-valuenow"] });
    });
    await page.getByRole("button", { name: "Import 248 links" }).click();
    await expect(page.getByTestId("import-summary")).toHaveText("247 created, 3 failed, of 250 rows in products.csv.", { timeout: 30_000 });
    const progress = await page.evaluate(() => (window as unknown as { __progress: string[] }).__progress);
    // Two rows refused in the browser, then three chunks of 100, 100 and 48 rows.
    expect(progress).toEqual(expect.arrayContaining(["102", "202", "250"]));
    expect(progress.indexOf("102")).toBeLessThan(progress.indexOf("202"));
    expect(progress.indexOf("202")).toBeLessThan(progress.indexOf("250"));
    await shot(page, testInfo, "import-results");

    await page.getByLabel("Only failures").check();
    const results = page.getByRole("table", { name: "Import results" });
    await expect(results.getByRole("row")).toHaveCount(4);
    await expect(results.getByRole("row", { name: /^6 / })).toContainText(`The alias "dup-${tag}" is already taken on that domain.`);
    await expect(results.getByRole("row", { name: /^10 / })).toContainText(
      "Row 10: 'ftp://example.com/10' is not a web address (use http or https)",
    );
    await expect(results.getByRole("row", { name: /^150 / })).toContainText(
      "Row 150: 'ftp://example.com/150' is not a web address (use http or https)",
    );
    await shot(page, testInfo, "import-failures");

    const download = page.waitForEvent("download");
    await page.getByRole("button", { name: "Download results (CSV)" }).click();
    const file = await (await download).path();
    const rows = parseCsv(fs.readFileSync(file!, "utf8")).rows;
    expect(rows[0]).toEqual(["row", "url", "alias", "status", "short", "error"]);
    expect(rows).toHaveLength(251);
    expect(rows.filter((r) => r[3] === "created")).toHaveLength(247);
    expect(rows[6]).toEqual([
      "6",
      `https://example.com/product/6?utm=${tag}`,
      `dup-${tag}`,
      "failed",
      "",
      `The alias "dup-${tag}" is already taken on that domain.`,
    ]);
    expect(rows[5][4]).toMatch(new RegExp(`^http://localhost:\\d+/dup-${tag}$`));

    // Exactly three link.bulk_created events, numbered as parts of the whole import.
    await expect.poll(() => received.size, { timeout: 20_000 }).toBe(3);
    const events = [...received.values()].sort((a, b) => a.data.batch.index - b.data.batch.index);
    expect(events.map((e) => e.type)).toEqual(["link.bulk_created", "link.bulk_created", "link.bulk_created"]);
    expect(events.map((e) => e.data.batch)).toEqual([
      { index: 1, count: 3 },
      { index: 2, count: 3 },
      { index: 3, count: 3 },
    ]);
    expect(events.map((e) => e.data.links.length)).toEqual([99, 100, 48]);
    expect(new Set(events.flatMap((e) => e.data.links.map((l) => l.code))).size).toBe(247);

    // The imported links are in the table, in their folder.
    await page.getByRole("link", { name: "View links" }).click();
    await expect(page.getByRole("navigation", { name: "Folders" }).getByRole("link", { name: new RegExp(tag) })).toContainText("247");
    await expect(page.getByRole("list", { name: "Links" }).getByRole("listitem")).toHaveCount(25);
    await page.getByLabel("Per page").selectOption("50");
    await expect(page.getByRole("list", { name: "Links" }).getByRole("listitem")).toHaveCount(50);
    await shot(page, testInfo, "links-after-import");

    // No link.created: the endpoint's delivery log (written in the import's own transactions, so
    // complete once the import has finished) holds the three link.bulk_created deliveries only.
    await page.goto(`/w/${slug}/developers/${endpoint.id}`);
    await expect(page.getByTestId("delivery")).toHaveCount(3);
    await page.getByLabel("Event type").selectOption("link.created");
    await page.getByRole("button", { name: "Filter" }).click();
    await expect(page.getByText("No deliveries match.")).toBeVisible();
    await page.getByLabel("Event type").selectOption("link.bulk_created");
    await page.getByRole("button", { name: "Filter" }).click();
    await expect(page.getByTestId("delivery")).toHaveCount(3);
    expect([...received.values()].map((e) => e.type)).toEqual(["link.bulk_created", "link.bulk_created", "link.bulk_created"]);
  } finally {
    await receiver.stop();
  }
});
