// The POSIX ustar subset a backup file needs: regular files and directories, names up to 255
// bytes. Written here rather than taken from a tar package because a general tar writer fails when
// a file is shorter than the size it announced, and a running PostgreSQL may truncate a relation
// file while it is being copied: the backup must then archive the announced size, zero-padded,
// and WAL replay at restore repairs that file (lib/db/backup/take.ts). Any tar reads the result.

const BLOCK = 512;
/** Largest entry size the 11 octal digits of a ustar header hold (8 GiB - 1). */
const MAX_SIZE = 8 ** 11 - 1;

export type TarEntry = { name: string; type: "file" | "directory"; size: number; mode: number; mtime: number };

function writeField(header: Buffer, offset: number, length: number, value: string) {
  if (Buffer.byteLength(value) > length) throw new Error(`tar field too long: ${value}`);
  header.write(value, offset, length, "utf8");
}

/** `n` in octal, zero-padded to `digits`, NUL-terminated (the ustar convention). */
function octal(n: number, digits: number): string {
  return n.toString(8).padStart(digits, "0") + "\0";
}

/** [prefix, name]: a path longer than the 100-byte name field is split at a "/" into the prefix field. */
function splitName(full: string): [string, string] {
  if (Buffer.byteLength(full) <= 100) return ["", full];
  for (let i = full.indexOf("/"); i >= 0; i = full.indexOf("/", i + 1)) {
    const prefix = full.slice(0, i);
    const rest = full.slice(i + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(rest) <= 100 && rest) return [prefix, rest];
  }
  throw new Error(`path too long for a tar header: ${full}`);
}

/** The 512-byte header announcing `entry` (directories get their trailing "/"). */
export function tarHeader(entry: TarEntry): Buffer {
  if (entry.size > MAX_SIZE) throw new Error(`${entry.name} is larger than a tar entry can hold`);
  const header = Buffer.alloc(BLOCK);
  const name = entry.type === "directory" && !entry.name.endsWith("/") ? entry.name + "/" : entry.name;
  const [prefix, rest] = splitName(name);
  writeField(header, 0, 100, rest);
  writeField(header, 100, 8, octal(entry.mode & 0o7777, 7));
  writeField(header, 108, 8, octal(0, 7)); // uid
  writeField(header, 116, 8, octal(0, 7)); // gid
  writeField(header, 124, 12, octal(entry.type === "file" ? entry.size : 0, 11));
  writeField(header, 136, 12, octal(Math.max(0, Math.floor(entry.mtime / 1000)), 11));
  writeField(header, 156, 1, entry.type === "file" ? "0" : "5");
  writeField(header, 257, 6, "ustar\0");
  writeField(header, 263, 2, "00");
  writeField(header, 345, 155, prefix);
  header.fill(" ", 148, 156); // the checksum counts its own field as spaces
  let sum = 0;
  for (const byte of header) sum += byte;
  writeField(header, 148, 8, sum.toString(8).padStart(6, "0") + "\0 ");
  return header;
}

/** Zeros that fill an entry of `size` bytes up to the next block. */
export function tarPadding(size: number): Buffer {
  return Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK);
}

/** The end of an archive: two zero blocks. */
export const TAR_END = Buffer.alloc(2 * BLOCK);

/** A file whose content is in memory, as header, content and padding. */
export function tarFile(name: string, content: Buffer, mode = 0o600): Buffer[] {
  return [tarHeader({ name, type: "file", size: content.length, mode, mtime: Date.now() }), content, tarPadding(content.length)];
}

function readString(header: Buffer, offset: number, length: number): string {
  const field = header.subarray(offset, offset + length);
  const end = field.indexOf(0);
  return field.subarray(0, end < 0 ? length : end).toString("utf8");
}

function readOctal(header: Buffer, offset: number, length: number): number {
  const text = readString(header, offset, length).trim();
  if (!/^[0-7]*$/.test(text)) throw new Error("not a tar archive (bad number in a header)");
  return text ? parseInt(text, 8) : 0;
}

export function parseTarHeader(header: Buffer): TarEntry {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : header[i];
  if (readString(header, 257, 6) !== "ustar" || readOctal(header, 148, 8) !== sum) throw new Error("not a tar archive (bad header)");
  const prefix = readString(header, 345, 155);
  const name = (prefix ? prefix + "/" : "") + readString(header, 0, 100);
  const flag = String.fromCharCode(header[156]);
  if (flag !== "0" && flag !== "\0" && flag !== "5") throw new Error(`unsupported tar entry type "${flag}" for ${name}`);
  const type = flag === "5" ? "directory" : "file";
  return {
    name: type === "directory" ? name.replace(/\/+$/, "") : name,
    type,
    size: type === "file" ? readOctal(header, 124, 12) : 0,
    mode: readOctal(header, 100, 8),
    mtime: readOctal(header, 136, 12) * 1000,
  };
}

/** Bytes from an async source, taken in exact amounts. */
class ByteSource {
  private chunks: Buffer[] = [];
  private length = 0;
  private readonly iterator: AsyncIterator<Buffer>;

  constructor(source: AsyncIterable<Buffer>) {
    this.iterator = source[Symbol.asyncIterator]();
  }

  private async fill(): Promise<boolean> {
    const next = await this.iterator.next();
    if (next.done) return false;
    const chunk = Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value);
    this.chunks.push(chunk);
    this.length += chunk.length;
    return true;
  }

  /** At most `max` bytes (at least one), or null at the end of the source. */
  async some(max: number): Promise<Buffer | null> {
    while (this.length === 0) if (!(await this.fill())) return null;
    const first = this.chunks[0];
    const piece = first.length <= max ? first : first.subarray(0, max);
    if (piece === first) this.chunks.shift();
    else this.chunks[0] = first.subarray(max);
    this.length -= piece.length;
    return piece;
  }

  /** Exactly `n` bytes; an error when the source ends first. */
  async exactly(n: number): Promise<Buffer> {
    const parts: Buffer[] = [];
    for (let got = 0; got < n;) {
      const piece = await this.some(n - got);
      if (!piece) throw new Error("the archive ends early (an incomplete or truncated file)");
      parts.push(piece);
      got += piece.length;
    }
    return parts.length === 1 ? parts[0] : Buffer.concat(parts);
  }
}

/**
 * Reads a tar stream entry by entry: `onEntry` gets each entry with its content as chunks, and
 * must read them to the end before it returns. An archive without its end blocks is an error.
 */
export async function readTar(
  source: AsyncIterable<Buffer>,
  onEntry: (entry: TarEntry, content: AsyncIterable<Buffer>) => Promise<void>,
): Promise<void> {
  const bytes = new ByteSource(source);
  for (;;) {
    const header = await bytes.exactly(BLOCK);
    if (header.every((b) => b === 0)) return;
    const entry = parseTarHeader(header);
    let left = entry.size;
    async function* content() {
      while (left > 0) {
        const piece = await bytes.some(Math.min(left, 1 << 20));
        if (!piece) throw new Error("the archive ends early (an incomplete or truncated file)");
        left -= piece.length;
        yield piece;
      }
    }
    await onEntry(entry, content());
    if (left > 0) throw new Error(`the content of ${entry.name} was not read`);
    await bytes.exactly(tarPadding(entry.size).length);
  }
}
