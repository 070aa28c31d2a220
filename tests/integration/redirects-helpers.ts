import http from "node:http";
import { db } from "../../lib/db/client.ts";

// Shared by the redirects-*.test.ts files: real HTTP with an explicit Host header (fetch forbids
// setting Host, so node:http), and rows inserted directly (no dependency on the links API).

export type Answer = { status: number; location?: string; body: string; headers: http.IncomingHttpHeaders };

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

export function request(
  port: number,
  host: string,
  path: string,
  opts: { method?: string; headers?: Record<string, string>; form?: Record<string, string> } = {},
): Promise<Answer> {
  const body = opts.form ? new URLSearchParams(opts.form).toString() : undefined;
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: opts.method ?? (body !== undefined ? "POST" : "GET"),
        agent,
        headers: {
          host,
          ...(body !== undefined ? { "content-type": "application/x-www-form-urlencoded", "content-length": Buffer.byteLength(body) } : {}),
          ...opts.headers,
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d) => (text += d));
        res.on("end", () => resolve({ status: res.statusCode!, location: res.headers.location, body: text, headers: res.headers }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

let counter = 0;

export async function createWorkspace(active = true) {
  counter++;
  return db().workspace.create({
    data: { slug: `redir-${process.pid}-${counter}`, name: `Redirects ${counter}`, plan: "business", active },
  });
}

export async function createDomain(workspaceId: number, host: string, opts: { verified?: boolean; active?: boolean } = {}) {
  return db().domain.create({
    data: {
      workspaceId,
      host,
      txtToken: "t".repeat(16),
      verifiedAt: opts.verified === false ? null : new Date(),
      verifiedHost: opts.verified === false ? null : host,
      active: opts.active ?? true,
    },
  });
}

type LinkFields = {
  code: string;
  url?: string;
  domainId?: number | null;
  active?: boolean;
  startsOn?: Date | null;
  expiresOn?: Date | null;
  maxClicks?: number | null;
  clicks?: number;
  fallbackUrl?: string | null;
  passwordHash?: string | null;
  targeting?: object;
};

export async function createLink(workspaceId: number, f: LinkFields) {
  return db().link.create({
    data: {
      workspaceId,
      code: f.code,
      url: f.url ?? `https://dest.example/${f.code}`,
      domainId: f.domainId ?? null,
      domainKey: f.domainId ?? 0,
      active: f.active ?? true,
      startsOn: f.startsOn ?? null,
      expiresOn: f.expiresOn ?? null,
      maxClicks: f.maxClicks ?? null,
      clicks: f.clicks ?? 0,
      fallbackUrl: f.fallbackUrl ?? null,
      passwordHash: f.passwordHash ?? null,
      ...(f.targeting ? { targeting: f.targeting } : {}),
    },
  });
}

/** The link's counter and its counted (not bot) click events: the click pipeline writes both in one transaction. */
export async function clicksOf(linkId: number) {
  const link = await db().link.findUniqueOrThrow({ where: { id: linkId }, select: { clicks: true } });
  const [{ n }] = await db().$queryRaw<
    { n: number }[]
  >`select count(*)::int as n from analytics.click_event where link_id = ${linkId} and not bot`;
  return { clicks: link.clicks, events: n };
}

/** Polls until `check` passes or `ms` elapse; returns the time it took. */
export async function within(ms: number, check: () => Promise<boolean>): Promise<number> {
  const start = Date.now();
  while (Date.now() - start < ms) {
    if (await check()) return Date.now() - start;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`not within ${ms} ms`);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
