import { realTimeNow } from "../clock.ts";
import { shared } from "../registry.ts";

// The share page (app/share/analytics/[token]) is public: no sign-in and no API key, so no rate
// budget stands in front of it, and each visit would run its view's whole report (up to 18
// queries). Its report is kept here per view for KEEP_MS: a burst of visits to one share link costs
// one report a minute in each process, plus the one indexed token lookup every visit still makes
// (so a revoked link answers 404 at once). Visits that arrive while the report is computed share it.
// Bounded: at most MAX_KEPT views are kept, the least recently used dropped first; a failed report
// is not kept. Figures up to a minute old are what a read-only dashboard shows anyway.

export const KEEP_MS = 60_000;
export const MAX_KEPT = 200;

type Kept<T> = { at: number; report: Promise<T> };

export class SharedReportCache<T> {
  private kept = new Map<string, Kept<T>>();

  constructor(
    private keepMs = KEEP_MS,
    private maxKept = MAX_KEPT,
  ) {}

  /** The report kept under `key` when younger than keepMs, else `compute()`'s, kept from now. */
  report(key: string, compute: () => Promise<T>): Promise<T> {
    const now = realTimeNow();
    const hit = this.kept.get(key);
    this.kept.delete(key); // re-inserted below: the Map's order is the order of last use
    if (hit && now - hit.at < this.keepMs) {
      this.kept.set(key, hit);
      return hit.report;
    }
    const entry: Kept<T> = { at: now, report: compute() };
    entry.report.catch(() => {
      if (this.kept.get(key) === entry) this.kept.delete(key);
    });
    this.kept.set(key, entry);
    while (this.kept.size > this.maxKept) this.kept.delete(this.kept.keys().next().value!);
    return entry.report;
  }

  get size(): number {
    return this.kept.size;
  }
}

/** The report of a shared view: kept per view, its parameters and its workspace's plan (which bounds the range). */
export function keptSharedReport<T>(
  view: { id: number; params: unknown },
  workspace: { plan: string },
  compute: () => Promise<T>,
): Promise<T> {
  const cache = shared("shared-reports", () => new SharedReportCache<unknown>()) as SharedReportCache<T>;
  return cache.report(`${view.id}\n${workspace.plan}\n${JSON.stringify(view.params)}`, compute);
}
