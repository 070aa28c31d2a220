import fs from "node:fs";
import path from "node:path";
import type { ClickEvent } from "../analytics/model.ts";

// The click journal: batches PostgreSQL refused, kept on disk until it takes them (pipeline.ts).
// One file a batch, named <sequence>-<batch id>.json, written as a temporary file, fsync'd, renamed
// into place and the folder fsync'd: a file with its final name is whole, and a crash mid-write
// leaves only a *.tmp that the next open deletes. The oldest file is replayed first and deleted only
// after its transaction committed; a replay after a commit whose acknowledgement was lost is
// skipped by the batch id the transaction records (batches.ts), so every batch is applied once.
// The folder is bounded by `maxBytes`: a batch that does not fit is refused (the caller logs it).

export type JournalBatch = {
  /** the batch id, recorded in the transaction that applies it (batches.ts) */
  id: string;
  /** uncapped links: [linkId, clicks to add] */
  totals: [number, number][];
  /** enriched click events (never an address: the visitor key is already an HMAC) */
  events: ClickEvent[];
  /** capped links: [linkId, clicks let through from what the process knew], counted when the batch is applied (absent: none) */
  capped?: [number, number][];
  /** indexes in `events` of those clicks, in order (an event beyond the link's cap when applied is left out) */
  held?: number[];
};

type Entry = { file: string; bytes: number };

const NAME = /^(\d{12})-([0-9a-f-]{36})\.json$/;

export class ClickJournal {
  private entries: Entry[] = [];
  private bytesHeld = 0;
  private nextSequence = 1;

  /** Opens `dir` (made at the first append), deleting unfinished writes and listing the batches it holds, oldest first. */
  constructor(
    readonly dir: string,
    readonly maxBytes: number,
  ) {
    if (!fs.existsSync(dir)) return;
    for (const name of fs.readdirSync(dir).sort()) {
      const file = path.join(dir, name);
      if (name.endsWith(".tmp")) fs.rmSync(file, { force: true });
      const m = NAME.exec(name);
      if (!m) continue;
      const bytes = fs.statSync(file).size;
      this.entries.push({ file, bytes });
      this.bytesHeld += bytes;
      this.nextSequence = Number(m[1]) + 1;
    }
  }

  /**
   * The capped links' clicks the waiting batches hold, per link (read once, when the pipeline
   * starts: what the database's counts still lack, pipeline.ts).
   */
  heldCapped(): Map<number, number> {
    const held = new Map<number, number>();
    for (const entry of this.entries) {
      const batch = JSON.parse(fs.readFileSync(entry.file, "utf8")) as JournalBatch;
      for (const [id, n] of batch.capped ?? []) held.set(id, (held.get(id) ?? 0) + n);
    }
    return held;
  }

  /** Batches waiting in the journal. */
  get batches(): number {
    return this.entries.length;
  }

  /** Bytes the waiting batches take on disk. */
  get bytes(): number {
    return this.bytesHeld;
  }

  /** Appends a batch durably; false (and nothing written) when it would make the journal exceed maxBytes. */
  async append(batch: JournalBatch): Promise<boolean> {
    const text = JSON.stringify(batch);
    const bytes = Buffer.byteLength(text);
    if (this.bytesHeld + bytes > this.maxBytes) return false;
    const name = `${String(this.nextSequence++).padStart(12, "0")}-${batch.id}.json`;
    const file = path.join(this.dir, name);
    const tmp = `${file}.tmp`;
    await fs.promises.mkdir(this.dir, { recursive: true });
    const handle = await fs.promises.open(tmp, "w");
    try {
      await handle.writeFile(text);
      await handle.datasync();
    } finally {
      await handle.close();
    }
    await fs.promises.rename(tmp, file);
    await this.syncFolder();
    this.entries.push({ file, bytes });
    this.bytesHeld += bytes;
    return true;
  }

  /** The oldest batch, or null when the journal is empty. */
  async oldest(): Promise<JournalBatch | null> {
    const entry = this.entries[0];
    if (!entry) return null;
    return JSON.parse(await fs.promises.readFile(entry.file, "utf8")) as JournalBatch;
  }

  /** Deletes the oldest batch (after its transaction committed, or was found committed before). */
  async dropOldest(): Promise<void> {
    const entry = this.entries.shift();
    if (!entry) return;
    this.bytesHeld -= entry.bytes;
    await fs.promises.rm(entry.file, { force: true });
    await this.syncFolder();
  }

  /** Renames the oldest batch to *.refused (kept for the operator, never replayed) and returns its file. */
  async setAsideOldest(): Promise<string> {
    const entry = this.entries.shift();
    if (!entry) return "";
    this.bytesHeld -= entry.bytes;
    await fs.promises.rename(entry.file, `${entry.file}.refused`);
    await this.syncFolder();
    return `${entry.file}.refused`;
  }

  private async syncFolder(): Promise<void> {
    const folder = await fs.promises.open(this.dir, "r");
    try {
      await folder.sync();
    } finally {
      await folder.close();
    }
  }
}

/**
 * The journal's folder for a database: under the data folder, one per database name, so a data
 * folder pointed at another database (or shared by test apps) never replays into the wrong one.
 */
export function journalFolder(dataDir: string, databaseUrl: string): string {
  const name = decodeURIComponent(new URL(databaseUrl).pathname.slice(1)) || "postgres";
  return path.join(dataDir, "clicks-journal", name.replace(/[^A-Za-z0-9_.-]/g, "_"));
}
