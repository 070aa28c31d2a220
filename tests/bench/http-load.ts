// A closed-loop HTTP/1.1 load generator on raw keep-alive sockets (no pipelining): `clients`
// connections, each sending its next request when the last one has been answered (and, paced, when
// the run's schedule of ratePerSecond gives it the next turn). Raw sockets
// keep the generator's own CPU per request small (node:http's client costs several times more),
// so more of the shared cores go to the server under test. Used by bench:api.
import net from "node:net";
import { coresBusy, cpuSnapshot, type CpuProbe, type CpuSnapshot } from "./cpu.ts";

export type BenchRequest = { method: string; path: string; headers?: Record<string, string>; body?: string };

export type LoadResult = {
  name: string;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  statuses: Record<number, number>;
  /** cores busy during the measured seconds: generator, server under test, PostgreSQL */
  cpu: CpuSnapshot | null;
  /** what `during` counted over the same seconds (e.g. SQL statements), in total and per name, when given */
  counted: number | null;
  countedByName: [name: string, count: number][];
};

const HEADER_END = Buffer.from("\r\n\r\n");

/** End of a chunked body starting at `pos` (no trailers), or -1 while incomplete. */
function chunkedEnd(buf: Buffer, pos: number): number {
  for (;;) {
    const lineEnd = buf.indexOf("\r\n", pos, "latin1");
    if (lineEnd === -1) return -1;
    const size = parseInt(buf.toString("latin1", pos, lineEnd), 16);
    if (Number.isNaN(size)) throw new Error("bad chunk size");
    pos = lineEnd + 2 + size + 2;
    if (pos > buf.length) return -1;
    if (size === 0) return pos;
  }
}

/** Length of the first complete response in buf (Content-Length or chunked body), or null. */
export function responseLength(buf: Buffer): { length: number; status: number } | null {
  const end = buf.indexOf(HEADER_END);
  if (end === -1) return null;
  const head = buf.toString("latin1", 0, end);
  const status = Number(head.slice(9, 12));
  const m = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  if (m) {
    const length = end + 4 + Number(m[1]);
    return buf.length >= length ? { length, status } : null;
  }
  if (!/\r\ntransfer-encoding:\s*chunked/i.test(head)) throw new Error(`response without a length:\n${head}`);
  const length = chunkedEnd(buf, end + 4);
  return length === -1 ? null : { length, status };
}

function encode(r: BenchRequest): string {
  const headers = { Host: "app.bench", ...r.headers };
  let head = `${r.method} ${r.path} HTTP/1.1\r\n`;
  for (const [k, v] of Object.entries(headers)) head += `${k}: ${v}\r\n`;
  if (r.body !== undefined) head += `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(r.body)}\r\n`;
  return head + "\r\n" + (r.body ?? "");
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export type LoadOptions = {
  name: string;
  port: number;
  clients: number;
  warmupSeconds: number;
  seconds: number;
  next: () => BenchRequest;
  probe: CpuProbe;
  /** counters read before and after the measured seconds; the differences are `counted` */
  during?: () => Promise<Map<string, number>>;
  /** at most this many requests a second in all (the clients wait their turns); none: as fast as answered */
  ratePerSecond?: number;
  /** every complete response's status, warm-up and wind-down included (e.g. to count every redirect served) */
  onResponse?: (status: number) => void;
};

export async function load(o: LoadOptions): Promise<LoadResult> {
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  let errors = 0;
  let recording = false;
  let stopped = false;
  const interval = o.ratePerSecond ? 1000 / o.ratePerSecond : 0;
  let nextSlot = 0;
  const runOne = () =>
    new Promise<void>((resolve) => {
      const socket = net.connect({ port: o.port, host: "127.0.0.1", noDelay: true });
      let buf = Buffer.alloc(0);
      let sentAt = 0n;
      const write = () => {
        if (stopped) {
          socket.end();
          return resolve();
        }
        sentAt = process.hrtime.bigint();
        socket.write(encode(o.next()));
      };
      // paced: each request waits for the next free slot of the whole run's schedule
      const send = () => {
        if (!interval) return write();
        const now = performance.now();
        const slot = Math.max(now, nextSlot);
        nextSlot = slot + interval;
        if (slot > now) setTimeout(write, slot - now);
        else write();
      };
      socket.on("connect", send);
      socket.on("data", (chunk) => {
        buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
        let r: ReturnType<typeof responseLength>;
        try {
          r = responseLength(buf);
        } catch (e) {
          console.error((e as Error).message);
          errors++;
          socket.destroy();
          return resolve();
        }
        if (!r) return;
        buf = buf.subarray(r.length);
        o.onResponse?.(r.status);
        if (recording) {
          latencies.push(Number(process.hrtime.bigint() - sentAt) / 1e6);
          statuses[r.status] = (statuses[r.status] ?? 0) + 1;
        }
        send();
      });
      socket.on("error", () => {
        errors++;
        resolve();
      });
      socket.on("close", () => resolve());
    });
  const all = Array.from({ length: o.clients }, runOne);
  await sleep(o.warmupSeconds * 1000);
  const countedBefore = o.during ? await o.during() : new Map<string, number>();
  const cpuBefore = cpuSnapshot(o.probe);
  recording = true;
  const start = process.hrtime.bigint();
  await sleep(o.seconds * 1000);
  recording = false;
  const elapsed = Number(process.hrtime.bigint() - start) / 1e9;
  const cpuAfter = cpuSnapshot(o.probe);
  const countedAfter = o.during ? await o.during() : new Map<string, number>();
  const countedByName = [...countedAfter]
    .map(([name, n]): [string, number] => [name, n - (countedBefore.get(name) ?? 0)])
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1]);
  stopped = true;
  await Promise.all(all);
  latencies.sort((x, y) => x - y);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? NaN;
  return {
    name: o.name,
    requests: latencies.length,
    rps: latencies.length / elapsed,
    p50: pct(0.5),
    p99: pct(0.99),
    errors,
    statuses,
    cpu: coresBusy(cpuBefore, cpuAfter, elapsed),
    counted: o.during ? countedByName.reduce((sum, [, n]) => sum + n, 0) : null,
    countedByName,
  };
}
