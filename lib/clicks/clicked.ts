import type pg from "pg";
import { CLICKED_EXAMINE_MAX, clickedCursorEndpoints, readWorkspaceClicksAfter } from "../analytics/store/clicked-feed.ts";
import { inPgTransaction } from "../db/pg-transaction.ts";
import { handOffAfterCommit, serializeEnvelope } from "../events/index.ts";
import { clickedEndpoints, recordClickedDeliveries, type ClickedEndpoint, type ClickedEvent } from "../events/sql.ts";
import { log } from "../log/index.ts";
import { planOf, webhookRatePerSecond } from "../plans/index.ts";
import { clickData, clickedCursorName, clickedEventId, clickedLinks, clickId } from "./deliveries.ts";
import { advanceCursor, deleteCursor, readCursor, type FeedPosition } from "./feed.ts";

// The link.clicked cursor reader: for each endpoint that receives link.clicked, the clicks after its
// cursor become events and deliveries only as fast as the endpoint can take them. Each turn, an
// endpoint with fewer than a second of its plan's rate (webhookRatePerSecond) waiting as unattempted
// deliveries gets the clicks to fill that second (its room): its workspace's counted clicks after
// the cursor, in commit order, in its click scope (links as they are now), each written as an event
// whose id is derived from the click (deliveries.ts) and one delivery, and the cursor moved, in one
// transaction. From there the delivery engine treats them as every other delivery: retries, the
// delivery log, the disabling rules, resend, the per-endpoint rate.
//
// The read (readWorkspaceClicksAfter, lib/analytics/store/clicked-feed.ts) applies the scope in SQL
// and brings only the clicks it returns into JavaScript: at most the room, among at most `examine`
// feed rows of the workspace. The cursor moves past every row the read examined (to the last click
// written when the room filled), so clicks outside the scope are passed once, and never past a
// click in the scope whose delivery is not written.
//
// One transaction per endpoint holds an advisory lock named by the cursor, so two processes never
// read one cursor at once (the other skips it this turn). An endpoint that no longer receives
// link.clicked (deleted, disabled, unsubscribed, its workspace switched off or on a plan without
// webhooks) loses its cursor: clicks meanwhile are not owed to it, as no event is to a disabled
// endpoint, and a new cursor starts at its next click (deliveries.ts, oweClickedDeliveries).

/** how often the reader runs */
export const CLICKED_TURN_MS = 250;
/**
 * A cursor whose read examined no row (nothing of its workspace after it) moves up to the feed's
 * horizon at most this often: staying saves a write a turn and costs no reading (the read visits
 * only the workspace's rows), and moving now and then lets the feed's pruning pass it
 * (pruneFedClickEvents, lib/analytics/store/feed.ts, keeps what the lowest cursor has not passed).
 */
const IDLE_ADVANCE_MS = 5_000;

export type ClickedTurn = { endpoints: number; deliveries: number };

export type ClickedReaderOptions = {
  /** unattempted deliveries an endpoint may have waiting (default: one second of its plan's rate) */
  window?: (rate: number) => number;
  /** feed rows one read examines at most (default CLICKED_EXAMINE_MAX; tests make it small) */
  examine?: number;
};

export class ClickedReader {
  private idleAdvancedAt = new Map<number, number>();
  private readonly window: (rate: number) => number;
  private readonly examine: number;

  constructor(
    private pool: pg.Pool,
    opts: ClickedReaderOptions = {},
  ) {
    this.window = opts.window ?? ((rate) => rate);
    this.examine = opts.examine ?? CLICKED_EXAMINE_MAX;
  }

  /** One turn over every subscribed endpoint; returns what it wrote. */
  async turn(): Promise<ClickedTurn> {
    const endpoints = await clickedEndpoints(this.pool);
    const live = new Set(endpoints.map((e) => e.endpointId));
    for (const id of await clickedCursorEndpoints(this.pool)) {
      if (!live.has(id)) {
        await deleteCursor(this.pool, clickedCursorName(id));
        this.idleAdvancedAt.delete(id);
      }
    }
    let deliveries = 0;
    for (const ep of endpoints) {
      const room = this.window(webhookRatePerSecond(planOf(ep.workspace.plan))) - ep.waiting;
      if (room <= 0) continue;
      const ids = await this.read(ep, room);
      handOffAfterCommit(ids, [ep.endpointId]);
      deliveries += ids.length;
    }
    return { endpoints: endpoints.length, deliveries };
  }

  private read(ep: ClickedEndpoint, room: number): Promise<number[]> {
    const name = clickedCursorName(ep.endpointId);
    return inPgTransaction(this.pool, async (client) => {
      const { rows } = await client.query<{ got: boolean }>({
        name: "clicks_clicked_lock",
        text: `select pg_try_advisory_xact_lock(hashtext($1)) as got`,
        values: [name],
      });
      if (!rows[0].got) return [];
      const cursor = await readCursor(client, name);
      if (!cursor) return []; // no click since it subscribed
      const read = await readWorkspaceClicksAfter(client, ep.workspace.id, ep, cursor, room, this.examine);
      const links = await clickedLinks(client, [...new Set(read.clicks.map((c) => c.linkId))]);
      const events: ClickedEvent[] = [];
      for (const c of read.clicks) {
        const link = links.get(c.linkId);
        if (!link) continue; // deleted since the read: in no scope now
        const id = clickedEventId(c.position, c.at);
        const data = { click: clickData(c, clickId(c.position)), link: link.object };
        events.push({ id, at: c.at, body: serializeEnvelope(id, "link.clicked", new Date(c.at), ep.workspace, data) });
      }
      const ids = await recordClickedDeliveries(client, ep.workspace.id, ep.endpointId, events);
      if (!read.idle || this.idleDue(ep.endpointId, cursor, read.next)) await advanceCursor(client, name, read.next);
      return ids;
    });
  }

  private idleDue(endpointId: number, cursor: FeedPosition, next: FeedPosition): boolean {
    if (cursor.tx === next.tx && cursor.seq === next.seq) return false;
    const at = this.idleAdvancedAt.get(endpointId) ?? 0;
    if (Date.now() - at < IDLE_ADVANCE_MS) return false;
    this.idleAdvancedAt.set(endpointId, Date.now());
    return true;
  }
}

/** The runtime's reader (lib/runtime.ts, with the background jobs): a turn every CLICKED_TURN_MS, never two at once. */
export function startClickedReader(pool: pg.Pool): () => Promise<void> {
  const reader = new ClickedReader(pool);
  let running: Promise<void> | null = null;
  const timer = setInterval(() => {
    if (running) return;
    running = reader
      .turn()
      .then(() => undefined)
      .catch((e) => log("clicks").error({ err: e }, "the link.clicked cursor reader failed; next turn retries"))
      .finally(() => (running = null));
  }, CLICKED_TURN_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
