import { format } from "node:util";
import pino, { type DestinationStream, type Level, type Logger } from "pino";
import { config } from "../config/index.ts";
import { peekShared, setShared } from "../registry.ts";
import { BatchedStream, flushLogLines } from "./batched.ts";
import { prettyStream } from "./pretty.ts";

export type { Logger } from "pino";

// The process's one logger (pino): JSON lines by default, one human line per record with
// LOG_FORMAT=pretty (the default of `npm run dev`), records below LOG_LEVEL dropped. Every area logs
// through its child, `log("webhooks").warn({ endpointId }, "endpoint disabled")`, so each line names
// where it comes from. The logger lives in the process registry (lib/registry.ts): server.ts's module
// graph and Next's bundle write through the same one.
//
// Lines are written in the process itself, without pino's worker-thread transports (the compiled
// server and Next's bundle need no worker file). JSON lines are gathered per event-loop turn and
// written with one write (batched.ts, which says what a crash can lose); the process's exit and
// runtime.close() write what is pending.
//
// What never goes into a line: passwords, API keys, secrets, tokens, session cookies and visitor
// addresses. Callers do not pass them; `redact` below is only the safety net for a field named
// like one of them.

export type LogFormat = "json" | "pretty";
export type LogLevel = Level | "silent";

export type LogOptions = {
  format: LogFormat;
  level: LogLevel;
  /**
   * "split" (the server, the default): info and below on stdout, warnings and errors on stderr;
   * "stderr": everything on stderr (the admin CLI, whose stdout is its JSON answer)
   */
  to?: "split" | "stderr";
  /** instead of stdout/stderr: where tests capture the lines (JSON) */
  stream?: DestinationStream;
};

type ProcessLog = { root: Logger; areas: Map<string, Logger>; options: LogOptions };

const REDACTED = [
  "password",
  "newPassword",
  "authorization",
  "cookie",
  "apiKey",
  "key",
  "secret",
  "token",
  "ip",
  "clientAddress",
  "headers.authorization",
  "headers.cookie",
  'headers["x-forwarded-for"]',
  "*.password",
  "*.authorization",
  "*.cookie",
  "*.secret",
  "*.token",
];

/** Builds the process's logger with `options` (replacing one built before) and returns the root. */
export function startLog(options: Partial<LogOptions> = {}): Logger {
  const full = { ...settings(), ...options };
  const root = pino(
    {
      level: full.level,
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      serializers: { err: serializeError },
      redact: { paths: REDACTED, censor: "[redacted]" },
    },
    destination(full),
  );
  setShared<ProcessLog>("log", { root, areas: new Map(), options: full });
  return root;
}

/** The logger of one area (a folder of lib/, or "linkhop" for the server itself). */
export function log(area: string): Logger {
  const current = peekShared<ProcessLog>("log") ?? (startLog(), peekShared<ProcessLog>("log")!);
  let child = current.areas.get(area);
  if (!child) current.areas.set(area, (child = current.root.child({ area })));
  return child;
}

/** Writes the log lines gathered in this event-loop turn now (runtime.close(), before the process ends). */
export function flushLog(): void {
  flushLogLines();
}

/** The format and level the process logs with. */
export function logOptions(): LogOptions {
  return peekShared<ProcessLog>("log")?.options ?? settings();
}

/**
 * A line of the form "[area] message" (from code that takes a plain line-logging function, such as
 * the click pipeline) logged under its area as a warning.
 */
export function logTaggedLine(line: string, fallbackArea: string): void {
  const m = /^\[([\w-]+)\] ([\s\S]*)$/.exec(line);
  log(m ? m[1] : fallbackArea).warn(m ? m[2] : line);
}

/**
 * Makes console.* write records (area "console") instead of plain text, for what packages print
 * (Next.js reports a failed page render that way): server.ts calls it when the format is json, so
 * every line of the output parses. Linkhop's own code logs through log(area).
 */
export function routeConsoleToLog(): void {
  const c = () => log("console");
  console.log = console.info = (...args: unknown[]) => c().info(format(...args));
  console.debug = (...args: unknown[]) => c().debug(format(...args));
  console.warn = (...args: unknown[]) => c().warn(format(...args));
  console.error = (...args: unknown[]) => c().error(format(...args));
}

function settings(): LogOptions {
  try {
    const cfg = config();
    return { format: cfg.LOG_FORMAT, level: cfg.LOG_LEVEL };
  } catch {
    // a configuration that does not parse is reported through this logger before the process ends
    return { format: process.env.LINKHOP_DEV === "1" ? "pretty" : "json", level: "info" };
  }
}

function destination(options: LogOptions): DestinationStream {
  if (options.stream) return options.stream;
  const low = options.to === "stderr" ? process.stderr : process.stdout;
  if (options.format === "pretty") return prettyStream(low, process.stderr);
  return pino.multistream(
    [
      { level: "trace", stream: new BatchedStream(low) },
      { level: "warn", stream: new BatchedStream(process.stderr) },
    ],
    { dedupe: true },
  );
}

/**
 * An error as a record field: its type, message, code, stack (which names the message too) and
 * cause. Other properties are left out: a driver's error may carry the values of the failed statement.
 */
function serializeError(e: unknown, depth = 0): unknown {
  if (!(e instanceof Error)) return { message: String(e) };
  const code = (e as { code?: unknown }).code;
  const cause = e.cause instanceof Error && depth < 3 ? { cause: serializeError(e.cause, depth + 1) } : {};
  return { type: e.name, message: e.message, ...(typeof code === "string" ? { code } : {}), stack: e.stack, ...cause };
}
