import pg from "pg";
import { log as logger } from "../log/index.ts";

// Change notifications from PostgreSQL (triggers in migration *_redirects_notify). Each app process
// LISTENs on its own connection; payloads name what changed:
//   l:<domainKey>:<code>   a link inserted, edited (anything but its click count) or deleted
//   d:<host>               a custom domain added, changed or removed
//   w:<workspaceId>        a workspace switched on or off
// While the connection is down the cache falls back to 1 s TTLs (cache.ts); after a reconnect
// everything cached is dropped, since notifications sent meanwhile are lost.

export const CHANNEL = "linkhop_redirects";

export type Change =
  { kind: "link"; domainKey: number; code: string } | { kind: "domain"; host: string } | { kind: "workspace"; id: number };

export function parseChange(payload: string | undefined): Change | null {
  if (!payload) return null;
  const kind = payload[0];
  const rest = payload.slice(2);
  if (payload[1] !== ":") return null;
  if (kind === "l") {
    const colon = rest.indexOf(":");
    const domainKey = Number(rest.slice(0, colon));
    if (colon < 1 || !Number.isInteger(domainKey)) return null;
    return { kind: "link", domainKey, code: rest.slice(colon + 1) };
  }
  if (kind === "d") return { kind: "domain", host: rest.toLowerCase() };
  if (kind === "w") return { kind: "workspace", id: Number(rest) };
  return null;
}

export type ChangeListener = {
  /** resolves once the first LISTEN succeeded or failed (startup does not wait longer) */
  ready: Promise<void>;
  close: () => Promise<void>;
};

type Handlers = {
  onChange: (change: Change) => void;
  /** live: true after each successful (re)LISTEN, false when the connection is lost */
  onState: (live: boolean) => void;
  log?: (msg: string) => void;
};

const HEALTH_INTERVAL_MS = 2_000;
const HEALTH_TIMEOUT_MS = 1_500;

/** LISTENs on CHANNEL, reconnecting with backoff; a periodic query detects a silently dead connection. */
export function listenForChanges(url: string, handlers: Handlers): ChangeListener {
  const log = handlers.log ?? ((m: string) => logger("redirects").warn(m));
  let client: pg.Client | null = null;
  let closed = false;
  let backoff = 250;
  let retryTimer: NodeJS.Timeout | undefined;
  let healthTimer: NodeJS.Timeout | undefined;
  let markReady!: () => void;
  const ready = new Promise<void>((r) => (markReady = r));

  const lost = (c: pg.Client, why: string) => {
    if (client !== c) return;
    client = null;
    clearInterval(healthTimer);
    handlers.onState(false);
    c.removeAllListeners("notification");
    c.on("error", () => {});
    c.end().catch(() => {});
    if (!closed) {
      log(`change listener lost (${why}); reconnecting`);
      schedule();
    }
  };

  const schedule = () => {
    retryTimer = setTimeout(connect, backoff);
    retryTimer.unref();
    backoff = Math.min(backoff * 2, 5_000);
  };

  const connect = async () => {
    if (closed) return;
    const c = new pg.Client({ connectionString: url, keepAlive: true, application_name: "linkhop-redirects-listen" });
    c.on("error", (e) => lost(c, e.message));
    c.on("end", () => lost(c, "connection ended"));
    c.on("notification", (msg) => {
      if (msg.channel !== CHANNEL) return;
      const change = parseChange(msg.payload);
      if (change) handlers.onChange(change);
    });
    try {
      await c.connect();
      await c.query(`listen ${CHANNEL}`);
    } catch (e) {
      c.removeAllListeners();
      c.on("error", () => {});
      c.end().catch(() => {});
      log(`cannot listen for changes: ${(e as Error).message}`);
      markReady();
      schedule();
      return;
    }
    if (closed) {
      await c.end().catch(() => {});
      return;
    }
    client = c;
    backoff = 250;
    handlers.onState(true);
    markReady();
    healthTimer = setInterval(() => {
      const timeout = setTimeout(() => lost(c, "health check timed out"), HEALTH_TIMEOUT_MS);
      c.query("select 1").then(
        () => clearTimeout(timeout),
        (e) => {
          clearTimeout(timeout);
          lost(c, (e as Error).message);
        },
      );
    }, HEALTH_INTERVAL_MS);
    healthTimer.unref();
  };

  void connect();

  return {
    ready,
    close: async () => {
      closed = true;
      clearTimeout(retryTimer);
      clearInterval(healthTimer);
      const c = client;
      client = null;
      if (c) {
        c.removeAllListeners("end");
        await c.end().catch(() => {});
      }
    },
  };
}
