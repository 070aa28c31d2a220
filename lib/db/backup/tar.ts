import { pipeline } from "node:stream/promises";
import * as tar from "tar-stream";

// The tar layer of the backup file (format.ts), on tar-stream: regular files and directories only.
// What tar-stream leaves to its user is done here: a directory's name ends in "/" in the archive,
// as tar writes it; an entry's content is written as the archive's reader takes it (backpressure);
// and reading checks that the archive ends with its two zero blocks, which tar-stream skips
// without a word, so that a backup cut at an entry's boundary is refused like one cut inside it.

export type TarEntry = { name: string; type: "file" | "directory"; size: number; mode: number; mtime: number };

const BLOCK = 512;
const ENDS_EARLY = "the archive ends early (an incomplete or truncated file)";

/**
 * Adds `entry` to `pack` with `content`, which must be exactly `entry.size` bytes (tar-stream
 * fails the archive otherwise). Resolves once the content is in the archive's stream.
 */
export async function addEntry(pack: tar.Pack, entry: TarEntry, content: Iterable<Buffer> | AsyncIterable<Buffer> = []): Promise<void> {
  const directory = entry.type === "directory";
  const sink = pack.entry({
    name: directory && !entry.name.endsWith("/") ? entry.name + "/" : entry.name,
    type: entry.type,
    size: directory ? 0 : entry.size,
    mode: entry.mode,
    mtime: new Date(entry.mtime),
  });
  await pipeline(content, sink);
}

/** A file whose content is in memory. */
export function addBuffer(pack: tar.Pack, name: string, content: Buffer, mode = 0o600): Promise<void> {
  return addEntry(pack, { name, type: "file", size: content.length, mode, mtime: Date.now() }, [content]);
}

function entryOf(header: tar.Header): TarEntry {
  const { name, type } = header;
  if (type !== "file" && type !== "directory") throw new Error(`unsupported tar entry type "${type}" for ${name}`);
  return {
    name: type === "directory" ? name.replace(/\/+$/, "") : name,
    type,
    size: type === "file" ? header.size : 0,
    mode: header.mode,
    mtime: header.mtime.getTime(),
  };
}

/** tar-stream's errors for a damaged or cut archive, in the words restore reports them with. */
function described(e: unknown): unknown {
  const message = e instanceof Error ? e.message : "";
  if (message.startsWith("Invalid tar header")) return new Error("not a tar archive (bad header)");
  if (message === "Unexpected end of data") return new Error(ENDS_EARLY);
  return e;
}

/**
 * Reads a tar stream entry by entry: `onEntry` gets each entry with its content as chunks, and
 * must read them to the end before it returns. An archive without its end blocks is an error.
 */
export async function readTar(
  source: AsyncIterable<Buffer>,
  onEntry: (entry: TarEntry, content: AsyncIterable<Buffer>) => Promise<void>,
): Promise<void> {
  const extract = tar.extract();
  let total = 0;
  async function* counted() {
    for await (const chunk of source) {
      total += chunk.length;
      yield chunk;
    }
  }
  const fed = pipeline(counted, extract);
  fed.catch(() => {}); // a failure there also ends the loop below with it
  let entriesEnd = 0; // where the last entry's content (padded to a block) ends
  try {
    for await (const stream of extract) {
      const entry = entryOf(stream.header);
      let read = 0;
      async function* content() {
        for await (const chunk of stream as AsyncIterable<Buffer>) {
          read += chunk.length;
          yield chunk;
        }
      }
      await onEntry(entry, content());
      if (read < entry.size) throw new Error(`the content of ${entry.name} was not read`);
      entriesEnd = stream.offset + BLOCK + Math.ceil(entry.size / BLOCK) * BLOCK;
    }
    await fed;
  } catch (e) {
    throw described(e);
  }
  if (total < entriesEnd + 2 * BLOCK) throw new Error(ENDS_EARLY);
}
