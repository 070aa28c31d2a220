import pg from "pg";
import type { ClickEvent } from "../../lib/analytics/model.ts";
import { insertClickEvents } from "../../lib/analytics/store/events-insert.ts";
import { ensureMonthPartition, monthOf, nextMonth } from "../../lib/analytics/store/partitions.ts";

// Seeded click events for the ClickHouse tests: a workspace with links in folders and tags, and
// events over `days` days before `now` whose every dimension varies (nulls, the "(direct)"
// referrer, bots, QR scans, non-ASCII cities), from a fixed seed.

export type Seeded = { workspace: { id: number; slug: string; name: string; plan: string }; linkIds: number[]; codes: string[] };

export async function seedWorkspace(pool: pg.Pool, slug: string, links = 12): Promise<Seeded> {
  const ws = (
    await pool.query(`insert into "Workspace" (slug, name, plan) values ($1, $1, 'business') returning id, slug, name, plan`, [slug])
  ).rows[0];
  const codes = Array.from({ length: links }, (_, i) => `${slug}${i}`);
  const { rows } = await pool.query<{ id: number }>(
    `insert into "Link" ("workspaceId", code, url, folder)
     select $1, c, 'https://example.com/' || c || case when i % 3 = 0 then '?utm_source=news&utm_campaign=c' || (i % 2) else '' end,
            case when i % 4 = 0 then 'promo' when i % 4 = 1 then 'promo/sub' else '' end
     from unnest($2::text[]) with ordinality as t(c, i) order by i returning id`,
    [ws.id, codes],
  );
  const linkIds = rows.map((r) => r.id);
  const tags = (
    await pool.query<{ id: number; name: string }>(
      `insert into "Tag" ("workspaceId", name, "nameKey") select $1, n, lower(n) from unnest(array['Featured', 'spring', 'beta']) as n returning id, name`,
      [ws.id],
    )
  ).rows;
  for (let i = 0; i < linkIds.length; i++) {
    for (const [k, t] of tags.entries())
      if ((i + k) % (k + 2) === 0) await pool.query(`insert into "LinkTag" ("linkId", "tagId") values ($1, $2)`, [linkIds[i], t.id]);
  }
  return { workspace: ws, linkIds, codes };
}

function generator(seed: number) {
  let s = seed;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const COUNTRIES = ["US", "DE", "SE", "IN", null];
const CITIES: Record<string, (string | null)[]> = {
  US: ["Boston", "Austin", null],
  DE: ["Berlin"],
  SE: ["Linköping", "Malmö"],
  IN: [null],
};
const AGENTS: [string, string | null, string | null][] = [
  ["mobile", "Safari", "iOS"],
  ["mobile", "Chrome", "Android"],
  ["desktop", "Chrome", "Windows"],
  ["desktop", "Firefox", "Linux"],
  ["desktop", "Firefox", "macOS"],
  ["tablet", "Safari", "iOS"],
  ["other", null, null],
];
const REFERRERS = [null, "t.co", "www.google.com", "news.ycombinator.com"];

/** `n` events over the `days` days before `now`, each at its own millisecond. */
export function seedEvents(seeded: Seeded, n: number, now: number, days: number, seed = 7): ClickEvent[] {
  const rand = generator(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
  const span = days * 86_400_000;
  const times = new Set<number>();
  while (times.size < n) times.add(now - 1 - Math.floor(rand() * span));
  return [...times].map((at) => {
    // a visitor (a key of the day) comes from one place with one browser: the key is made from
    // the address and the User-Agent, and a bot's never equals a browser's
    const day = Math.floor(at / 86_400_000);
    const v = Math.floor(rand() * 40);
    const country = COUNTRIES[v % COUNTRIES.length];
    const [device, browser, os] = AGENTS[v % AGENTS.length];
    const referrer = pick(REFERRERS);
    const bot = v >= 36;
    const link = Math.floor(rand() ** 2 * seeded.linkIds.length);
    return {
      at,
      workspaceId: seeded.workspace.id,
      linkId: seeded.linkIds[link],
      // long URLs, every third link an A/B test of two, one visit in ten without one (recorded
      // before destinations were); from the time, so the generator's other values stay as they were
      ...(at % 10 === 0
        ? {}
        : {
            destination: `https://shop.example.com/products/category-${link % 5}/item-${link}${
              link % 3 === 0 && at % 2 === 0 ? "-b" : ""
            }?utm_source=linkhop&utm_medium=short-link&utm_campaign=autumn-sale-2026`,
          }),
      domain: "short.test",
      target: pick(["destination", "destination", "ios", "geo"] as const),
      country,
      city: country ? CITIES[country][v % CITIES[country].length] : null,
      referrerHost: referrer,
      referrerUrl: referrer ? `https://${referrer}/p?q=${Math.floor(rand() * 3)}` : null,
      device,
      browser,
      os,
      bot,
      qr: rand() < 0.2,
      visitor: String(day * 1000 + v),
    };
  });
}

/** Stores events in PostgreSQL as the click flush does (month partitions first), in batches. */
export async function storeEvents(pool: pg.Pool, events: ClickEvent[], batch = 500): Promise<void> {
  const times = events.map((e) => e.at);
  const last = monthOf(Math.max(...times));
  for (let m = monthOf(Math.min(...times)); ; m = nextMonth(m)) {
    await ensureMonthPartition(pool, m);
    if (m.year === last.year && m.month === last.month) break;
  }
  for (let i = 0; i < events.length; i += batch) await insertClickEvents(pool, events.slice(i, i + batch));
}
