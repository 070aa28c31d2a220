import { randomBytes, randomUUID } from "node:crypto";
import type { ClickHit } from "../analytics/ingest/enrich.ts";
import { batchEnricher } from "../analytics/ingest/enrich.ts";
import { geoLookup, type GeoLookup } from "../analytics/ingest/geo.ts";
import type { ClickEvent } from "../analytics/model.ts";
import { utcDay } from "../analytics/model.ts";
import { logTaggedLine } from "../log/index.ts";
import { metrics } from "../metrics/index.ts";
import type { ClickJournal, JournalBatch } from "./journal.ts";

// The one path of a click after the redirect has answered (lib/clicks: lib/redirects hands its
// clicks here, and this area writes through lib/analytics and lib/events, never the other way):
//
//   redirect -> add(hit) (memory only) -> one buffer -> flush every CLICK_FLUSH_MS and at shutdown
//            -> ONE transaction (writer.ts): "Link".clicks of uncapped links (counters.ts)
//               + analytics.click_event rows + link.clicked events and deliveries (deliveries.ts)
//
// Capped links were counted at once on the request path (countCappedClick, counters.ts, exact under races), so
// only their events wait here; bots are recorded as bots and never counted. While the database
// cannot count a capped link's click (an outage), or its count still lacks clicks held here or in
// the journal, the redirect decides from what this process knows (knownClicks: the last count it
// saw, plus the clicks it let through since, journaled ones included after a restart) and hands
// the click over as held (addHeld): the batch that carries it adds it to the counter, held at the
// cap, and leaves out the events of held clicks beyond it (writer.ts). One process alone is exact;
// several processes in one outage may let through more than the cap together, and then only the
// first up to the cap are counted and stored.
//
// A batch the database does not take goes to the journal (journal.ts: a file a batch under the data
// folder, fsync'd), and while the journal holds anything every new batch is appended behind it, so
// batches reach the database in the order they were made. Each flush replays the journal oldest
// first until the database refuses again; a restart replays what the journal holds. Every batch
// carries an id its transaction records (batches.ts), so a replay of a batch that did commit is
// skipped: counters, events and link.clicked deliveries are applied exactly once. A full journal
// refuses the batch, which is then given up with a log line and a metric.
//
// Without a journal (tests of the pipeline alone), a refused batch is kept in memory for the next
// flush: the counters until they are written, the events for `maxAttempts` flushes in a row, then
// given up with a log line naming how many. Nothing is ever lost silently. The writer (writer.ts)
// and the journal are the only parts that do I/O.

/** hits enriched between two turns of the event loop during a flush */
const ENRICH_SLICE = 2000;

export type ClickBatch = {
  /** a UUID, recorded in the batch's transaction (batches.ts) so that a replay is applied once */
  id: string;
  /** uncapped links: clicks to add to "Link".clicks */
  totals: Map<number, number>;
  /** every recorded visit, enriched */
  events: ClickEvent[];
  /** capped links: clicks let through from what the process knew (addHeld), to add held at the cap */
  capped: Map<number, number>;
  /** indexes in `events` of those clicks, in order: the ones beyond a link's cap when written are left out */
  held: number[];
};

export interface ClickWriter {
  /** The day's visitor salt (lib/analytics: visitor keys are unlinkable across days). */
  saltFor(day: number): Promise<Buffer>;
  /**
   * Writes the batch in one transaction; throws when it could not (then nothing of it is stored).
   * Returns the counts of the batch's capped links after it (none when it was applied before).
   */
  write(batch: ClickBatch): Promise<Map<number, number> | void>;
}

export type PipelineOptions = {
  /** failed flushes in a row before the events of a batch are given up (default 120: two minutes at one flush a second) */
  maxAttempts?: number;
  /** events held in memory at most; beyond it new ones are counted as dropped and logged (counters still count) */
  maxPending?: number;
  geo?: () => GeoLookup | null;
  log?: (line: string) => void;
  /** where refused batches wait for the database (journal.ts); without one they wait in memory */
  journal?: ClickJournal;
};

export class ClickPipeline {
  private totals = new Map<number, number>();
  /** held clicks of capped links not yet in a batch, per link, and their hits */
  private capped = new Map<number, number>();
  private heldHits = new Set<ClickHit>();
  /** held clicks of capped links not yet written (in memory or in the journal), per link */
  private pendingCapped = new Map<number, number>();
  /** the last count this process saw of each capped link (countCappedClick, or a batch's write) */
  private seenClicks = new Map<number, number>();
  private hits: ClickHit[] = [];
  private failed: ClickHit[] = [];
  private attempts = 0;
  private dropped = 0;
  private flushing: Promise<void> = Promise.resolve();
  private readonly maxAttempts: number;
  private readonly maxPending: number;
  private readonly geo: () => GeoLookup | null;
  private readonly log: (line: string) => void;
  private readonly journal: ClickJournal | undefined;
  /** salts made here for days whose shared salt the database could not give (an outage) */
  private localSalts = new Map<number, Buffer>();
  /** the database refused the last write (logged once until it takes one again) */
  private refusing = false;
  private lastRefusal: unknown;

  constructor(
    private writer: ClickWriter,
    opts: PipelineOptions = {},
  ) {
    this.maxAttempts = opts.maxAttempts ?? 120;
    this.maxPending = opts.maxPending ?? 200_000;
    this.geo = opts.geo ?? geoLookup;
    this.log = opts.log ?? ((line) => logTaggedLine(line, "clicks"));
    this.journal = opts.journal;
    if (this.journal?.batches) this.pendingCapped = this.journal.heldCapped();
  }

  /** Clicks of a capped link held by this process and not yet written (the database's count lacks them). */
  heldClicks(linkId: number): number {
    return this.pendingCapped.get(linkId) ?? 0;
  }

  /** The capped link's count as this process knows it: the last count seen (or `loaded`, the cache's) plus its held clicks. */
  knownClicks(linkId: number, loaded: number): number {
    return Math.max(loaded, this.seenClicks.get(linkId) ?? 0) + this.heldClicks(linkId);
  }

  /** The count countCappedClick (or a read) answered for a capped link. */
  sawClicks(linkId: number, clicks: number): void {
    if (clicks > (this.seenClicks.get(linkId) ?? 0)) this.seenClicks.set(linkId, clicks);
  }

  /**
   * A counted click on a capped link that the database could not count now: let through when the
   * count this process knows is below `maxClicks` (then held, and true), else false (cap reached).
   */
  addHeld(hit: ClickHit, maxClicks: number, loaded: number): boolean {
    if (this.knownClicks(hit.linkId, loaded) >= maxClicks) return false;
    this.capped.set(hit.linkId, (this.capped.get(hit.linkId) ?? 0) + 1);
    this.pendingCapped.set(hit.linkId, this.heldClicks(hit.linkId) + 1);
    this.heldHits.add(hit);
    this.add(hit, false);
    return true;
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

  /** Batches waiting in the journal, and their bytes on disk (0 without a journal). */
  get journaled(): { batches: number; bytes: number } {
    return { batches: this.journal?.batches ?? 0, bytes: this.journal?.bytes ?? 0 };
  }

  /**
   * The last flush before the process exits. With a journal, what the database refuses stays in it
   * for the next start. Without, up to `tries` attempts a short while apart, then the rest is given
   * up with a log line (there is no later flush to keep it for).
   */
  async flushForExit(tries = 3, pauseMs = 250): Promise<void> {
    if (this.journal) {
      await this.flush();
      const { batches, bytes } = this.journaled;
      if (batches)
        this.log(`[clicks] ${batches} click batches (${bytes} bytes) wait in the journal ${this.journal.dir}; the next start replays them`);
      return;
    }
    for (let i = 0; i < tries && (this.backlog > 0 || this.totals.size > 0 || this.capped.size > 0); i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, pauseMs));
      await this.flush();
    }
    if (this.backlog > 0 || this.totals.size > 0 || this.capped.size > 0) {
      metrics().clicks.givenUp.inc({ reason: "shutdown" }, this.backlog);
      this.log(
        `[clicks] gave up on ${this.backlog} click events at shutdown (and ${this.uncountedClicks} clicks on link counters): the database did not take them`,
      );
      this.failed = [];
      this.hits = [];
      this.totals = new Map();
      this.capped = new Map();
      this.heldHits.clear();
    }
  }

  private async flushOnce(): Promise<void> {
    if (this.dropped) {
      metrics().clicks.givenUp.inc({ reason: "overflow" }, this.dropped);
      this.log(`[analytics] dropped ${this.dropped} click events: more than ${this.maxPending} were waiting for the database`);
      this.dropped = 0;
    }
    if (this.journal) {
      try {
        await this.flushThroughJournal(this.journal);
      } catch (e) {
        // the journal's own I/O failed (a full or broken disk): the batch in hand is lost, say so
        this.log(`[clicks] the click journal failed: ${(e as Error).message}`);
      }
      return;
    }
    if (!this.hits.length && !this.failed.length && !this.totals.size && !this.capped.size) return;
    const hits = this.failed.length ? this.failed.concat(this.hits) : this.hits;
    const totals = this.totals;
    const capped = this.capped;
    this.hits = [];
    this.failed = [];
    this.totals = new Map();
    this.capped = new Map();
    const started = performance.now();
    try {
      const batch = { id: randomUUID(), totals, events: await this.enrich(hits), capped, held: this.heldIn(hits) };
      this.written(batch, await this.writer.write(batch));
      for (const h of hits) this.heldHits.delete(h);
      this.attempts = 0;
      metrics().clicks.flushDuration.observe({ result: "ok" }, (performance.now() - started) / 1000);
    } catch (e) {
      metrics().clicks.flushDuration.observe({ result: "error" }, (performance.now() - started) / 1000);
      for (const [id, n] of totals) this.totals.set(id, (this.totals.get(id) ?? 0) + n);
      for (const [id, n] of capped) this.capped.set(id, (this.capped.get(id) ?? 0) + n);
      this.attempts++;
      const why = (e as Error).message;
      if (this.attempts >= this.maxAttempts) {
        metrics().clicks.givenUp.inc({ reason: "failed_writes" }, hits.length);
        this.log(`[analytics] gave up on ${hits.length} click events after ${this.attempts} failed writes: ${why}`);
        this.attempts = 0;
        for (const h of hits) this.heldHits.delete(h);
      } else {
        this.log(`[analytics] writing ${hits.length} click events failed (${this.attempts} in a row), kept for the next try: ${why}`);
        this.failed = hits;
      }
    }
  }

  /**
   * With a journal: a new batch is written at once when nothing waits before it, else (or when the
   * database refuses it) appended to the journal; then the journal is replayed, oldest first, until
   * the database refuses again.
   */
  private async flushThroughJournal(journal: ClickJournal): Promise<void> {
    let refused = false;
    if (this.hits.length || this.totals.size || this.capped.size) {
      const hits = this.hits;
      const totals = this.totals;
      const capped = this.capped;
      const held = this.heldIn(hits);
      this.hits = [];
      this.totals = new Map();
      this.capped = new Map();
      for (const h of hits) this.heldHits.delete(h);
      const batch: ClickBatch = { id: randomUUID(), totals, events: await this.enrich(hits), capped, held };
      if (journal.batches === 0) {
        if (await this.write(batch)) return;
        refused = true;
      }
      await this.keep(journal, batch);
    }
    if (!refused) await this.replay(journal);
  }

  /** The indexes of the held clicks among `hits` (addHeld), in order. */
  private heldIn(hits: ClickHit[]): number[] {
    if (!this.heldHits.size) return [];
    const held: number[] = [];
    for (let i = 0; i < hits.length; i++) if (this.heldHits.has(hits[i])) held.push(i);
    return held;
  }

  /** A batch is in the database (or was given up): its held clicks are no longer pending, and the counts it left are seen. */
  private written(batch: Pick<ClickBatch, "capped">, counts: Map<number, number> | void): void {
    for (const [id, n] of batch.capped) {
      const left = this.heldClicks(id) - n;
      if (left > 0) this.pendingCapped.set(id, left);
      else this.pendingCapped.delete(id);
    }
    if (counts) for (const [id, clicks] of counts) this.sawClicks(id, clicks);
  }

  /** One transaction of the writer; false (logged once per outage) when the database refused it. */
  private async write(batch: ClickBatch): Promise<boolean> {
    const started = performance.now();
    try {
      this.written(batch, await this.writer.write(batch));
      metrics().clicks.flushDuration.observe({ result: "ok" }, (performance.now() - started) / 1000);
      return true;
    } catch (e) {
      metrics().clicks.flushDuration.observe({ result: "error" }, (performance.now() - started) / 1000);
      this.lastRefusal = e;
      if (!this.refusing) {
        this.refusing = true;
        this.log(
          `[clicks] the database refused a batch of ${batch.events.length} click events, journaling until it takes them: ${(e as Error).message}`,
        );
      }
      return false;
    }
  }

  private async keep(journal: ClickJournal, batch: ClickBatch): Promise<void> {
    const kept: JournalBatch = { id: batch.id, totals: [...batch.totals], events: batch.events };
    if (batch.capped.size) Object.assign(kept, { capped: [...batch.capped], held: batch.held });
    if (await journal.append(kept)) return;
    this.written(batch, undefined); // given up: its held clicks will never be counted
    const clicks = kept.totals.reduce((n, [, c]) => n + c, 0);
    metrics().clicks.givenUp.inc({ reason: "journal_full" }, batch.events.length);
    this.log(
      `[clicks] the click journal is full (${journal.bytes} of ${journal.maxBytes} bytes, CLICK_JOURNAL_MAX_MB): gave up on ${batch.events.length} click events and ${clicks} clicks on link counters`,
    );
  }

  private async replay(journal: ClickJournal): Promise<void> {
    let replayed = 0;
    for (let batch = await journal.oldest(); batch; batch = await journal.oldest()) {
      const again: ClickBatch = {
        id: batch.id,
        totals: new Map(batch.totals),
        events: batch.events,
        capped: new Map(batch.capped ?? []),
        held: batch.held ?? [],
      };
      if (!(await this.write(again))) {
        if (!refusesContent(this.lastRefusal)) return;
        // the database answered and will never take this batch: set it aside, or it would block every later one
        const file = await journal.setAsideOldest();
        this.written(again, undefined);
        metrics().clicks.givenUp.inc({ reason: "failed_writes" }, batch.events.length);
        this.log(
          `[clicks] the database refuses a journaled batch of ${batch.events.length} click events (${(this.lastRefusal as Error).message}): set aside as ${file}`,
        );
        continue;
      }
      await journal.dropOldest();
      replayed++;
    }
    if (this.refusing) {
      this.refusing = false;
      this.log(`[clicks] the database takes click batches again: replayed ${replayed} from the journal, which is empty`);
    }
  }

  /** The day's shared salt; while the database cannot give it, one made here (visitors of the outage may count twice). */
  private async saltFor(day: number): Promise<Buffer> {
    try {
      return await this.writer.saltFor(day);
    } catch (e) {
      let salt = this.localSalts.get(day);
      if (!salt) {
        salt = randomBytes(32);
        this.localSalts.set(day, salt);
        for (const d of this.localSalts.keys()) if (d < day - 1) this.localSalts.delete(d);
        this.log(`[clicks] no visitor salt for day ${day} from the database (${(e as Error).message}): using one of this process`);
      }
      return salt;
    }
  }

  private async enrich(hits: ClickHit[]): Promise<ClickEvent[]> {
    const salts = new Map<number, Buffer>();
    for (const hit of hits) {
      const day = utcDay(hit.at);
      if (!salts.has(day)) salts.set(day, this.journal ? await this.saltFor(day) : await this.writer.saltFor(day));
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

/**
 * An error PostgreSQL answered about the batch's content (SQLSTATE class 22 data exception, 23
 * integrity constraint, 42 syntax or access): retrying the same batch cannot help, unlike a lost
 * connection or a database that is starting or shutting down.
 */
function refusesContent(e: unknown): boolean {
  const code = (e as { code?: unknown })?.code;
  return typeof code === "string" && /^(22|23|42)/.test(code);
}
