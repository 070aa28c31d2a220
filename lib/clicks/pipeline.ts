import type { ClickHit } from "../analytics/ingest/enrich.ts";
import { batchEnricher } from "../analytics/ingest/enrich.ts";
import { geoLookup, type GeoLookup } from "../analytics/ingest/geo.ts";
import type { ClickEvent } from "../analytics/model.ts";
import { utcDay } from "../analytics/model.ts";
import { logTaggedLine } from "../log/index.ts";
import { metrics } from "../metrics/index.ts";

// The one path of a click after the redirect has answered (lib/clicks: lib/redirects hands its
// clicks here, and this area writes through lib/analytics and lib/events, never the other way):
//
//   redirect -> add(hit) (memory only) -> one buffer -> flush every CLICK_FLUSH_MS and at shutdown
//            -> ONE transaction (writer.ts): "Link".clicks of uncapped links (counters.ts)
//               + analytics.click_event rows + link.clicked events and deliveries (deliveries.ts)
//
// Capped links were counted at once on the request path (countCappedClick, counters.ts, exact under races), so
// only their events wait here; bots are recorded as bots and never counted. A batch the database
// does not take is kept for the next flush: the counters until they are written, the events for
// `maxAttempts` flushes in a row, then given up with a log line naming how many, so nothing is ever
// lost silently. The writer (writer.ts) is the only part that does I/O.

/** hits enriched between two turns of the event loop during a flush */
const ENRICH_SLICE = 2000;

export type ClickBatch = {
  /** uncapped links: clicks to add to "Link".clicks */
  totals: Map<number, number>;
  /** every recorded visit, enriched */
  events: ClickEvent[];
};

export interface ClickWriter {
  /** The day's visitor salt (lib/analytics: visitor keys are unlinkable across days). */
  saltFor(day: number): Promise<Buffer>;
  /** Writes the batch in one transaction; throws when it could not (then nothing of it is stored). */
  write(batch: ClickBatch): Promise<void>;
}

export type PipelineOptions = {
  /** failed flushes in a row before the events of a batch are given up (default 120: two minutes at one flush a second) */
  maxAttempts?: number;
  /** events held in memory at most; beyond it new ones are counted as dropped and logged (counters still count) */
  maxPending?: number;
  geo?: () => GeoLookup | null;
  log?: (line: string) => void;
};

export class ClickPipeline {
  private totals = new Map<number, number>();
  private hits: ClickHit[] = [];
  private failed: ClickHit[] = [];
  private attempts = 0;
  private dropped = 0;
  private flushing: Promise<void> = Promise.resolve();
  private readonly maxAttempts: number;
  private readonly maxPending: number;
  private readonly geo: () => GeoLookup | null;
  private readonly log: (line: string) => void;

  constructor(
    private writer: ClickWriter,
    opts: PipelineOptions = {},
  ) {
    this.maxAttempts = opts.maxAttempts ?? 120;
    this.maxPending = opts.maxPending ?? 200_000;
    this.geo = opts.geo ?? geoLookup;
    this.log = opts.log ?? ((line) => logTaggedLine(line, "clicks"));
  }

  /** A visit sent on: `countTotal` for a counted click of an uncapped link (capped links were counted already, bots never are). */
  add(hit: ClickHit, countTotal: boolean): void {
    if (countTotal) this.totals.set(hit.linkId, (this.totals.get(hit.linkId) ?? 0) + 1);
    if (this.hits.length + this.failed.length >= this.maxPending) this.dropped++;
    else this.hits.push(hit);
  }

  /** Events waiting to be written (new and kept after a failure). */
  get backlog(): number {
    return this.hits.length + this.failed.length;
  }

  /** Clicks of uncapped links not yet added to their counters. */
  get uncountedClicks(): number {
    let n = 0;
    for (const c of this.totals.values()) n += c;
    return n;
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
    for (let i = 0; i < tries && (this.backlog > 0 || this.totals.size > 0); i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, pauseMs));
      await this.flush();
    }
    if (this.backlog > 0 || this.totals.size > 0) {
      metrics().clicks.givenUp.inc({ reason: "shutdown" }, this.backlog);
      this.log(
        `[clicks] gave up on ${this.backlog} click events at shutdown (and ${this.uncountedClicks} clicks on link counters): the database did not take them`,
      );
      this.failed = [];
      this.hits = [];
      this.totals = new Map();
    }
  }

  private async flushOnce(): Promise<void> {
    if (this.dropped) {
      metrics().clicks.givenUp.inc({ reason: "overflow" }, this.dropped);
      this.log(`[analytics] dropped ${this.dropped} click events: more than ${this.maxPending} were waiting for the database`);
      this.dropped = 0;
    }
    if (!this.hits.length && !this.failed.length && !this.totals.size) return;
    const hits = this.failed.length ? this.failed.concat(this.hits) : this.hits;
    const totals = this.totals;
    this.hits = [];
    this.failed = [];
    this.totals = new Map();
    const started = performance.now();
    try {
      await this.writer.write({ totals, events: await this.enrich(hits) });
      this.attempts = 0;
      metrics().clicks.flushDuration.observe({ result: "ok" }, (performance.now() - started) / 1000);
    } catch (e) {
      metrics().clicks.flushDuration.observe({ result: "error" }, (performance.now() - started) / 1000);
      for (const [id, n] of totals) this.totals.set(id, (this.totals.get(id) ?? 0) + n);
      this.attempts++;
      const why = (e as Error).message;
      if (this.attempts >= this.maxAttempts) {
        metrics().clicks.givenUp.inc({ reason: "failed_writes" }, hits.length);
        this.log(`[analytics] gave up on ${hits.length} click events after ${this.attempts} failed writes: ${why}`);
        this.attempts = 0;
      } else {
        this.log(`[analytics] writing ${hits.length} click events failed (${this.attempts} in a row), kept for the next try: ${why}`);
        this.failed = hits;
      }
    }
  }

  private async enrich(hits: ClickHit[]): Promise<ClickEvent[]> {
    const salts = new Map<number, Buffer>();
    for (const hit of hits) {
      const day = utcDay(hit.at);
      if (!salts.has(day)) salts.set(day, await this.writer.saltFor(day));
    }
    const enrich = batchEnricher(this.geo());
    const events = new Array<ClickEvent>(hits.length);
    for (let i = 0; i < hits.length; i++) {
      // a second's worth of clicks takes a while to enrich: let waiting requests through now and then
      if (i > 0 && i % ENRICH_SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
      events[i] = enrich(hits[i], salts.get(utcDay(hits[i].at))!);
    }
    return events;
  }
}
