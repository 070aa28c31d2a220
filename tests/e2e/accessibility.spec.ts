import { expect, test, type Page } from "@playwright/test";
import { admin, seriousViolations } from "./support.ts";
import { seedWorkspace, signIn, type Role, type SeededWorkspace } from "./workspace-seed.ts";

// axe-core over every page of the app, signed in as owner, admin and member, at desktop (1280x800)
// and phone (390x844) sizes: no critical or serious violation, and every page has a title. One
// workspace is seeded for all six runs; each run collects every violation before failing, so one
// run lists them all.

const VIEWPORTS = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;
const ROLES: Role[] = ["owner", "admin", "member"];

// the trace would record every DOM read axe makes; a failure lists each violation instead
test.use({ trace: "off" });

let seeded: SeededWorkspace;

test.beforeAll(async ({ browser }) => {
  const page = await browser.newPage();
  seeded = await seedWorkspace(page);
  await page.close();
  // the owner is also the instance administrator, so the Instance page is checked too
  await admin("instance:admin", { email: seeded.emails.owner });
});

type AppPage = { name: string; path: string; roles: Role[]; phone: boolean };

/**
 * Every page of the app signed in. The owner sees every control, so every page is checked as the
 * owner; admins and members again on the pages that differ by role (what they may manage). The
 * API reference is one long static page, the same for everyone: checked once, on the desktop.
 */
function appPages(s: SeededWorkspace): AppPage[] {
  const w = `/w/${s.slug}`;
  const link = `${w}/links/${s.linkIds[0]}`;
  const all: Role[] = ["owner"];
  const pages: [string, string, Role[], boolean?][] = [
    ["overview", w, ["owner", "member"]],
    ["links", `${w}/links`, all],
    ["links filtered", `${w}/links?folder=marketing&tag=spring`, all],
    ["new link", `${w}/links/new`, all],
    ["link", link, all],
    ["edit link", `${link}/edit`, all],
    ["import", `${w}/links/import`, all],
    ["analytics", `${w}/analytics`, all],
    ["analytics filtered", `${w}/analytics?country=US&range=7d`, all],
    ["domains", `${w}/domains`, ["owner", "member"]],
    ["members", `${w}/members`, ROLES],
    ["developers", `${w}/developers`, ROLES],
    ["endpoint", `${w}/developers/${s.endpointId}`, all],
    ["settings", `${w}/settings`, ROLES],
    ["usage", `${w}/settings/usage`, all],
    ["api keys", `${w}/settings/api-keys`, ["owner", "member"]],
    ["tags and templates", `${w}/settings/campaigns`, ["owner", "member"]],
    ["not found", `${w}/links/999999999`, all],
    ["account", "/account", all],
    ["new workspace", "/w/new", all],
    ["instance", "/instance", all],
    ["API docs", "/docs/api", all, false],
    ["webhook docs", "/docs/webhooks", all],
  ];
  return pages.map(([name, path, roles, phone = true]) => ({ name, path, roles, phone }));
}

const SIGNED_OUT_PAGES: [string, string][] = [
  ["sign in", "/login"],
  ["sign up", "/signup"],
  ["forgot password", "/forgot-password"],
];

async function scan(page: Page, pages: [string, string][], who: string): Promise<string[]> {
  const found: string[] = [];
  for (const [name, path] of pages) {
    await page.goto(path);
    await expect(page.getByRole("heading", { level: 1 }).first()).toBeVisible();
    if (!(await page.title()).trim()) found.push(`${name} (${who}): the document has no title`);
    const problems = await seriousViolations(page, `${name} (${who})`);
    // printed at once too, so a run stopped by its time limit still lists what it found
    for (const p of problems) console.log(p);
    found.push(...problems);
  }
  return found;
}

// The desktop and phone runs go side by side to keep the time down.
test("axe: every page as owner, admin and member, desktop and phone: no critical or serious violations", async ({ browser }) => {
  test.setTimeout(300_000);
  const lane = async (viewport: keyof typeof VIEWPORTS) => {
    const found: string[] = [];
    const phone = viewport === "phone" ? { isMobile: true, hasTouch: true } : {};
    for (const role of ROLES) {
      const context = await browser.newContext({ viewport: VIEWPORTS[viewport], ...phone });
      const page = await context.newPage();
      if (role === "owner") found.push(...(await scan(page, SIGNED_OUT_PAGES, `${viewport}, signed out`)));
      await signIn(page, seeded.emails[role]);
      const pages = appPages(seeded).filter((p) => p.roles.includes(role) && (viewport === "desktop" || p.phone));
      found.push(
        ...(await scan(
          page,
          pages.map((p): [string, string] => [p.name, p.path]),
          `${viewport}, ${role}`,
        )),
      );
      await context.close();
    }
    return found;
  };
  const found = (await Promise.all([lane("desktop"), lane("phone")])).flat();
  expect(found, found.join("\n")).toEqual([]);
});
