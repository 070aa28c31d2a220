// Shared set-up for the webhooks integration tests: a workspace on a plan with webhooks, an
// endpoint, and events emitted the way the services do (withEvents: the event and its deliveries
// are written in the change's transaction).
import { randomBytes } from "node:crypto";
import type pg from "pg";
import { inject } from "vitest";
import { createTestCa, startReceiver, type Receiver, type Responder, type TestCa } from "../support/https-receiver.ts";
import { feedSettled } from "../support/db.ts";
import { resetConfig } from "../../lib/config/index.ts";
import { db } from "../../lib/db/client.ts";
import { withEvents, type EventType } from "../../lib/events/index.ts";
import { ClickedReader } from "../../lib/clicks/clicked.ts";
import { createUser } from "../../lib/auth/users.ts";
import { createWorkspace } from "../../lib/workspaces/index.ts";

/** Sets variables for this test process's own config() (services called in-process). */
export function useEnv(env: Record<string, string | undefined>) {
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  resetConfig();
}

export async function newWorkspace(plan = "team", ownerEmail?: string) {
  const tag = randomBytes(4).toString("hex");
  const email = ownerEmail ?? `owner-${tag}@example.test`;
  await createUser({ email, password: "password-123456" });
  const ws = await createWorkspace({ slug: `ws-${tag}`, name: `Workspace ${tag}`, owner: email, plan });
  return { ...(await db().workspace.findUniqueOrThrow({ where: { id: ws.id } })), ownerEmail: email };
}

/** Emits one event in its own transaction; returns the event row and its delivery ids. */
export async function emitEvent(
  ws: { id: number; slug: string; name: string; plan: string },
  type: EventType = "member.joined",
  data?: unknown,
) {
  const marker = randomBytes(6).toString("hex");
  const payload = data ?? {
    member: { id: Math.floor(Math.random() * 1e6), email: `m-${marker}@example.test`, role: "member", via: "added" },
  };
  const before = new Set((await db().webhookEvent.findMany({ where: { workspaceId: ws.id }, select: { id: true } })).map((e) => e.id));
  await withEvents(async (_tx, emit) => emit(ws, type, payload));
  const events = await db().webhookEvent.findMany({
    where: { workspaceId: ws.id, type },
    include: { deliveries: { orderBy: { id: "asc" } } },
  });
  const event = events.find((e) => !before.has(e.id)) ?? null;
  return { event, deliveryIds: event?.deliveries.map((d) => d.id) ?? [] };
}

export async function attemptsOf(deliveryId: number) {
  return db().deliveryAttempt.findMany({ where: { deliveryId }, orderBy: { id: "asc" } });
}

export { eventually } from "../support/eventually.ts";

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The link.clicked cursors read (lib/clicks/clicked.ts) until a turn writes nothing, once every
 * transaction so far has finished (the feed reads only below the oldest running one, which on a
 * shared test server may be another file's). `window`: deliveries an endpoint may have waiting
 * (default: a second of its plan's rate, as in the app). Returns the deliveries written.
 */
export async function readClickedCursors(pool: pg.Pool, window?: number): Promise<number> {
  await feedSettled(pool);
  const reader = new ClickedReader(pool, window === undefined ? {} : { window: () => window });
  let written = 0;
  for (;;) {
    const { deliveries } = await reader.turn();
    if (!deliveries) return written;
    written += deliveries;
  }
}

/**
 * The run's test CA (made in tests/support/global-setup.ts and trusted by this worker and every app
 * it starts through NODE_EXTRA_CA_CERTS).
 */
export function testCa(): TestCa {
  return createTestCa(inject("testCaDir"));
}

let issued: { key: string; cert: string } | undefined;

/**
 * A real HTTPS receiver on loopback with a certificate from the run's CA for localhost and
 * 127.0.0.1 (and `names`): what production sends to, TLS verified like any endpoint.
 */
export async function startHttpsReceiver(opts: { respond?: Responder; names?: string[] } = {}): Promise<Receiver> {
  const tls = opts.names?.length ? testCa().issue([...opts.names, "localhost"]) : (issued ??= testCa().issue(["localhost"]));
  return startReceiver({ tls, respond: opts.respond });
}

/** Records the name and row count of every named statement run through `pool.query` until restored. */
export function countStatements(pool: import("pg").Pool) {
  const calls: { name: string; rows: number }[] = [];
  const original = pool.query.bind(pool) as (...args: unknown[]) => Promise<{ rowCount: number | null; rows: unknown[] }>;
  (pool as unknown as { query: unknown }).query = async (...args: unknown[]) => {
    const result = await original(...args);
    const config = args[0] as { name?: string };
    if (config && typeof config === "object" && config.name) calls.push({ name: config.name, rows: result.rows?.length ?? 0 });
    return result;
  };
  return { calls, restore: () => delete (pool as unknown as { query?: unknown }).query };
}
