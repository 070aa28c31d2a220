import { listen, type Listener } from "../db/listen.ts";
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

export type ChangeListener = Listener;

type Handlers = {
  onChange: (change: Change) => void;
  /** live: true after each successful (re)LISTEN, false when the connection is lost */
  onState: (live: boolean) => void;
  log?: (msg: string) => void;
};

/** LISTENs on CHANNEL (lib/db/listen.ts): each notification as a Change. */
export function listenForChanges(url: string, handlers: Handlers): ChangeListener {
  return listen(url, CHANNEL, "redirects", {
    onPayload: (payload) => {
      const change = parseChange(payload);
      if (change) handlers.onChange(change);
    },
    onState: handlers.onState,
    log: handlers.log ?? ((m: string) => logger("redirects").warn(m)),
  });
}
