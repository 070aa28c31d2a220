// The README's screenshots (`npm run screenshots -- <app url>`, default http://localhost:3000):
// against a started app, signs up its own user, makes 24 links and 300 clicks through the app
// (tests/bench/app-seed.ts) and writes docs/screenshots/links.png (the links list),
// docs/screenshots/link.png (a link's page with its analytics) and docs/screenshots/overview.png,
// at 1280x800 in Chromium.
import fs from "node:fs";
import path from "node:path";
import { launchChromium, sampleLinks, seedThroughApp } from "../tests/bench/app-seed.ts";

const base = (process.argv[2] ?? process.env.APP_URL ?? "http://localhost:3000").replace(/\/$/, "");
const outDir = path.resolve(import.meta.dirname, "../docs/screenshots");
fs.mkdirSync(outDir, { recursive: true });

const browser = await launchChromium();
const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 })).newPage();
console.log(`screenshots of ${base}: seeding 24 links and 300 clicks…`);
const { slug, linkIds } = await seedThroughApp(page, base, { name: "Acme Marketing", links: sampleLinks(24), clicks: 300 });
const w = `${base}/w/${slug}`;

async function shoot(name: string, url: string, ready: (p: typeof page) => Promise<unknown>) {
  await page.goto(url);
  await ready(page);
  await page.waitForLoadState("networkidle", { timeout: 10_000 }).catch(() => {});
  const file = path.join(outDir, `${name}.png`);
  await page.screenshot({ path: file });
  console.log(`wrote ${path.relative(process.cwd(), file)}`);
}

await shoot("links", `${w}/links`, (p) => p.getByRole("list", { name: "Links" }).waitFor());
// the first link has the most clicks (the seeding weights them towards the first links)
await shoot("link", `${w}/links/${linkIds[0]}`, (p) => p.getByTestId("total-clicks").waitFor());
await shoot("overview", w, (p) => p.getByRole("heading", { level: 1 }).waitFor());
await browser.close();
