import pg from "pg";
import { log as logger } from "../log/index.ts";

// One LISTEN connection on one channel, kept alive: reconnected with backoff, and checked by a
// periodic query (a connection can die silently). Whoever keeps a cache fed by notifications must
// treat a lost connection as "anything may have changed": onState(false) when it is lost,
// onState(true) after each successful (re)LISTEN (notifications sent meanwhile are lost).
// Users: the redirect cache (lib/redirects/notify.ts), the API key cache (lib/keys/cache.ts).

export type Listener = {
  /** resolves once the first LISTEN succeeded or failed (startup does not wait longer) */
  ready: Promise<void>;
  close: () => Promise<void>;
};

type Handlers = {
  onPayload: (payload: string | undefined) => void;
  /** live: true after each successful (re)LISTEN, false when the connection is lost */
  onState: (live: boolean) => void;
  log?: (msg: string) => void;
};

const HEALTH_INTERVAL_MS = 2_000;
const HEALTH_TIMEOUT_MS = 1_500;

/** LISTENs on `channel`, reconnecting with backoff; a periodic query detects a silently dead connection. */
export function listen(url: string, channel: string, name: string, handlers: Handlers): Listener {
  const log = handlers.log ?? ((m: string) => logger("db").warn(`${name}: ${m}`));
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
    const c = new pg.Client({ connectionString: url, keepAlive: true, application_name: `linkhop-${name}-listen` });
    c.on("error", (e) => lost(c, e.message));
    c.on("end", () => lost(c, "connection ended"));
    c.on("notification", (msg) => {
      if (msg.channel === channel) handlers.onPayload(msg.payload);
    });
    try {
      await c.connect();
      await c.query(`listen ${channel}`);
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
