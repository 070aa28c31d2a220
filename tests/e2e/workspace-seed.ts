// A workspace with something on every page, for the specs that walk the whole app (accessibility,
// phone layout): an owner, an admin and a plain member, links with tags and folders, real clicks,
// an API key and a webhook endpoint. Built through the sign-up form, the admin CLI and the API.
import { expect, type APIRequestContext, type Page } from "@playwright/test";
import { admin, appUrl, PASSWORD, signUp, uniqueEmail } from "./support.ts";

export type Role = "owner" | "admin" | "member";

export type SeededWorkspace = {
  slug: string;
  emails: Record<Role, string>;
  linkIds: number[];
  endpointId: number;
};

// Playwright's own request client is a bot to isbot: clicks need a browser's User-Agent to count.
export const BROWSER_UA = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:126.0) Gecko/20100101 Firefox/126.0";

/** Signs in through the login form; lands where `next` says (or the app's start page). */
export async function signIn(page: Page, email: string, next?: string) {
  await page.goto(next ? `/login?next=${encodeURIComponent(next)}` : "/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((url) => url.pathname !== "/login");
}

export async function seedWorkspace(page: Page): Promise<SeededWorkspace> {
  const { email: owner, slug } = await signUp(page, { name: "Olivia Owner" });
  const emails: Record<Role, string> = { owner, admin: uniqueEmail("admin"), member: uniqueEmail("member") };
  for (const role of ["admin", "member"] as const) {
    await admin("user:create", { email: emails[role], password: PASSWORD, name: `${role} person` });
    await admin("member:add", { slug, email: emails[role], role });
  }
  const { key } = (await admin("key:create", { slug, name: "Reporting" })) as { key: string };
  // Webhooks need a paid plan; back on Free afterwards, so the pages show their upgrade hints too.
  await admin("workspace:plan", { slug, plan: "team" });
  const endpoint = (await admin("webhook:create", { slug, url: "https://localhost:9/hooks/linkhop", events: "all" })) as { id: number };
  await admin("workspace:plan", { slug, plan: "free" });
  const linkIds = await createLinksWithClicks(page.request, key);
  return { slug, emails, linkIds, endpointId: endpoint.id };
}

async function createLinksWithClicks(request: APIRequestContext, key: string): Promise<number[]> {
  const headers = { Authorization: `Bearer ${key}` };
  const specs = [
    { url: "https://example.com/spring-sale?ref=newsletter", title: "Spring sale", folder: "marketing/2026", tags: ["spring", "email"] },
    { url: "https://shop.example.org/products/very-long-product-name-for-the-catalogue", title: "Catalogue", tags: ["shop"] },
    { url: "https://docs.example.net/guide" },
  ];
  const links: { id: number; short: string }[] = [];
  for (const data of specs) {
    const res = await request.post(`${appUrl}/api/v1/links`, { headers, data });
    expect(res.status(), await res.text()).toBe(201);
    links.push((await res.json()) as { id: number; short: string });
  }
  const visits: [number, string][] = [
    [0, "US"],
    [0, "DE"],
    [0, "US"],
    [1, "FR"],
  ];
  for (const [index, country] of visits) {
    const r = await request.get(links[index].short, { maxRedirects: 0, headers: { "User-Agent": BROWSER_UA, "X-Country": country } });
    expect(r.status()).toBe(302);
  }
  // visits are written in batches, about once a second
  await expect
    .poll(async () => ((await (await request.get(`${appUrl}/api/v1/analytics`, { headers })).json()) as { clicks: number }).clicks, {
      timeout: 15_000,
    })
    .toBe(visits.length);
  return links.map((l) => l.id);
}
