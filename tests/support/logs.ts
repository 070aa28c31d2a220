import { startLog, logOptions } from "../../lib/log/index.ts";
import { prettyLine, type LogRecord } from "../../lib/log/pretty.ts";
import { peekShared, setShared } from "../../lib/registry.ts";

// Reading what Linkhop logs (lib/log): JSON lines, or the same records as a person reads them
// (each line as LOG_FORMAT=pretty prints it), from an app's output or from this process.

export type { LogRecord } from "../../lib/log/pretty.ts";

/** The record of one output line, or null for a line that is not one (e.g. a package's own text). */
export function parseLogLine(line: string): LogRecord | null {
  if (!line.startsWith("{")) return null;
  try {
    const record = JSON.parse(line) as LogRecord;
    return typeof record.level === "string" && typeof record.msg === "string" ? record : null;
  } catch {
    return null;
  }
}

/** One complete output line as a person reads it, with its newline. */
export function renderLogLine(line: string): string {
  const record = parseLogLine(line);
  return record ? prettyLine(record) : line + "\n";
}

/** A whole output as a person reads it (each JSON line as LOG_FORMAT=pretty prints it). */
export function renderLogs(output: string): string {
  const lines = output.split("\n");
  const last = lines.pop()!;
  return lines.map(renderLogLine).join("") + last;
}

/** The records among the output's lines. */
export function logRecords(output: string): LogRecord[] {
  return output
    .split("\n")
    .map(parseLogLine)
    .filter((r): r is LogRecord => r !== null);
}

/**
 * What this process logs until restore(), instead of writing it out (the format and level stay
 * those of the configuration).
 */
export function captureLogs(): { records: () => LogRecord[]; text: () => string; restore: () => void } {
  const before = peekShared("log");
  const lines: string[] = [];
  startLog({ ...logOptions(), stream: { write: (line: string) => void lines.push(line) } });
  return {
    records: () => logRecords(lines.join("")),
    text: () => lines.map((l) => renderLogLine(l.replace(/\n$/, ""))).join(""),
    restore: () => setShared("log", before),
  };
}
