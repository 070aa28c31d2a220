import { utcDay, type ClickEvent, type ClickStore } from "../model.ts";
import { batchEnricher, type ClickHit } from "./enrich.ts";
import { geoLookup, type GeoLookup } from "./geo.ts";
import { VisitorSalts } from "./visitor.ts";

// Click events off the request path: the redirect adds a ClickHit (no I/O), a timer flushes the
// buffer every second (lib/analytics/jobs.ts) and on shutdown. A batch that cannot be written (the
// database is down) is kept and retried with the next flush; after `maxAttempts` failed flushes in
// a row it is given up with a log line naming the count, so nothing is ever lost silently.

/** hits enriched between two turns of the event loop during a flush */
const ENRICH_SLICE = 2000;

export type RecorderOptions = {
  /** failed flushes in a row before a batch is given up (default 120: two minutes at one flush a second) */
  maxAttempts?: number;
  /** events held in memory at most; beyond it new ones are counted as dropped and logged */
  maxPending?: number;
  log?: (line: string) => void;
};

export class ClickEventRecorder {
  private pending: ClickHit[] = [];
  private failed: ClickHit[] = [];
  private attempts = 0;
  private dropped = 0;
  private flushing: Promise<void> = Promise.resolve();
  private readonly maxAttempts: number;
  private readonly maxPending: number;
  private readonly log: (line: string) => void;
  private readonly salts: VisitorSalts;

  constructor(
    private store: ClickStore,
    private geo: () => GeoLookup | null = geoLookup,
    opts: RecorderOptions = {},
  ) {
    this.maxAttempts = opts.maxAttempts ?? 120;
    this.maxPending = opts.maxPending ?? 200_000;
    this.log = opts.log ?? ((line) => console.error(line));
    this.salts = new VisitorSalts(store);
  }

  add(hit: ClickHit): void {
    if (this.pending.length + this.failed.length >= this.maxPending) {
      this.dropped++;
      return;
    }
    this.pending.push(hit);
  }

  /** Events waiting to be written (new and kept after a failure). */
  get backlog(): number {
    return this.pending.length + this.failed.length;
  }

  /** Writes everything added so far; flushes never overlap. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.flushOnce());
    return this.flushing;
  }

  /**
   * The last flush before the process exits: up to `tries` attempts a short while apart, then the
   * rest is given up with a log line (there is no later flush to keep it for).
   */
  async flushForExit(tries = 3, pauseMs = 250): Promise<void> {
    for (let i = 0; i < tries && this.backlog > 0; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, pauseMs));
      await this.flush();
    }
    if (this.backlog > 0) {
      this.log(`[analytics] gave up on ${this.backlog} click events at shutdown: the database did not take them`);
      this.failed = [];
      this.pending = [];
    }
  }

  private async flushOnce(): Promise<void> {
    if (this.dropped) {
      this.log(`[analytics] dropped ${this.dropped} click events: more than ${this.maxPending} were waiting for the database`);
      this.dropped = 0;
    }
    if (!this.pending.length && !this.failed.length) return;
    const batch = this.failed.length ? this.failed.concat(this.pending) : this.pending;
    this.pending = [];
    this.failed = [];
    try {
      const geo = this.geo();
      const salts = new Map<number, Buffer>();
      for (const hit of batch) {
        const day = utcDay(hit.at);
        if (!salts.has(day)) salts.set(day, await this.salts.saltFor(day));
      }
      const enrich = batchEnricher(geo);
      const events = new Array<ClickEvent>(batch.length);
      for (let i = 0; i < batch.length; i++) {
        // a second's worth of clicks takes a while to enrich: let waiting requests through now and then
        if (i > 0 && i % ENRICH_SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
        events[i] = enrich(batch[i], salts.get(utcDay(batch[i].at))!);
      }
      await this.store.record(events);
      this.attempts = 0;
    } catch (e) {
      this.attempts++;
      if (this.attempts >= this.maxAttempts) {
        this.log(`[analytics] gave up on ${batch.length} click events after ${this.attempts} failed writes: ${(e as Error).message}`);
        this.attempts = 0;
      } else {
        this.log(
          `[analytics] writing ${batch.length} click events failed (${this.attempts} in a row), kept for the next try: ${(e as Error).message}`,
        );
        this.failed = batch;
      }
    }
  }
}
