import type { DestinationStream } from "pino";
import { shared } from "../registry.ts";

// The server's log lines are gathered for the rest of the event loop's turn and written with one
// write (setImmediate): under load the API logs a line per request, and one write call (a system
// call on a pipe or file) per line cost a measurable part of a request's CPU (`npm run bench:api`,
// BENCH_SERVER_CPU_PROFILE). Lines keep their order and reach the output in the same turn's check
// phase, so a reader sees them at once.
//
// What a crash can lose: the exit hook below writes what is pending on process.exit() and on an
// uncaught exception (Node runs "exit" handlers then), and runtime.close() flushes too, so a
// SIGTERM or SIGINT shutdown loses nothing. A process killed outright (SIGKILL, the kernel's OOM
// killer, a native crash) loses the lines of the turn it died in: lines that had not reached the
// output before either (the last answers they describe had not been sent yet, as the lines are
// written in the same turn as the answers).

type Target = Pick<NodeJS.WritableStream, "write">;

// The streams with lines waiting, once per process (both module graphs, lib/registry.ts), so a
// flush from either graph writes them all; the exit hook is installed with it.
const pendingStreams = () =>
  shared("log-lines", () => {
    process.on("exit", flushLogLines);
    return new Set<BatchedStream>();
  });

export class BatchedStream implements DestinationStream {
  private lines: string[] = [];

  constructor(private readonly target: Target) {
    pendingStreams();
  }

  write(line: string): void {
    if (this.lines.length === 0) {
      const pending = pendingStreams();
      pending.add(this);
      if (pending.size === 1) setImmediate(flushLogLines);
    }
    this.lines.push(line);
  }

  /** Writes the gathered lines now, in one write. */
  flush(): void {
    if (this.lines.length === 0) return;
    const text = this.lines.length === 1 ? this.lines[0] : this.lines.join("");
    this.lines = [];
    this.target.write(text);
  }
}

/** Writes every stream's gathered lines now (the turn's end, shutdown, exit). */
export function flushLogLines(): void {
  const pending = pendingStreams();
  const streams = [...pending];
  pending.clear();
  for (const s of streams) s.flush();
}
