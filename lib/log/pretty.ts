import type { DestinationStream } from "pino";

// LOG_FORMAT=pretty: one line a record for a person at a terminal (`npm run dev`),
//   12:04:05.120 WARN  [webhooks] endpoint 7 disabled: ... endpointId=7
// and an error's stack on the lines below it. Written here instead of with pino-pretty, which
// runs in a worker thread as a pino transport: this is a few lines, synchronous, and needs no
// extra package in the compiled server or Next's bundle.

type LoggedError = { stack?: string; message?: string; cause?: LoggedError };
export type LogRecord = { level?: string; time?: string; area?: string; msg?: string; err?: LoggedError } & Record<string, unknown>;

const NOT_FIELDS = new Set(["level", "time", "pid", "hostname", "area", "msg", "err"]);
const HIGH = new Set(["warn", "error", "fatal"]);

/** One record (a JSON line as pino writes it) as text, ending with a newline. */
export function prettyLine(record: LogRecord): string {
  const time = typeof record.time === "string" ? record.time.slice(11, 23) : "";
  const level = (record.level ?? "").toUpperCase().padEnd(5);
  const area = record.area ? `[${record.area}] ` : "";
  const fields = Object.entries(record)
    .filter(([k, v]) => !NOT_FIELDS.has(k) && v !== undefined)
    .map(([k, v]) => `${k}=${typeof v === "string" && /^[^\s"=]+$/.test(v) ? v : JSON.stringify(v)}`);
  // fields go on the first line; a message of several lines (a mail without SMTP) follows as it is
  const [first, ...rest] = (record.msg ?? "").split("\n");
  let text = `${time} ${level} ${area}${first}${fields.length ? " " + fields.join(" ") : ""}`;
  if (rest.length) text += "\n" + rest.join("\n");
  for (let e = record.err, prefix = ""; e; e = e.cause, prefix = "caused by: ")
    text += "\n    " + prefix + (e.stack ?? e.message ?? "").replace(/\n/g, "\n    ");
  return text + "\n";
}

/** A pino destination writing pretty lines: warnings and errors to `high`, the rest to `low`. */
export function prettyStream(low: NodeJS.WritableStream, high: NodeJS.WritableStream): DestinationStream {
  return {
    write(line: string) {
      let record: LogRecord;
      try {
        record = JSON.parse(line) as LogRecord;
      } catch {
        low.write(line);
        return;
      }
      (HIGH.has(String(record.level)) ? high : low).write(prettyLine(record));
    },
  };
}
