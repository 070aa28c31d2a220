import fs from "node:fs";
import net from "node:net";
import path from "node:path";

// What stops a start, said in one line: what is wrong and what to do (server.ts prints it as one
// fatal record and exits 1, having stopped whatever it had started). A person reading a terminal
// gets the cause, not a stack; the few checks that can run before anything starts run first.

/** A refusal to start whose message is the whole line to print. */
export class StartError extends Error {}

const oneLine = (s: string) => s.replace(/\s*\n\s*/g, " ").trim();

/** Throws a StartError unless `port` can be listened on as server.ts does (every address). */
export async function assertPortFree(port: number, variable = "PORT"): Promise<void> {
  if (port === 0) return;
  const probe = net.createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once("error", reject);
    probe.listen(port, () => probe.close(() => resolve()));
  }).catch((e: NodeJS.ErrnoException) => {
    throw listenError(e, port, variable);
  });
}

/** The line for a server that could not listen on `port`. */
export function listenError(e: NodeJS.ErrnoException, port: number, variable = "PORT"): StartError {
  if (e.code === "EADDRINUSE")
    return new StartError(`port ${port} is already in use: stop what listens there, or set ${variable} to a free port`);
  if (e.code === "EACCES")
    return new StartError(
      `port ${port} needs privileges this user lacks: set ${variable} to a port above 1023 (a proxy can forward 80/443)`,
    );
  return new StartError(`cannot listen on port ${port} (${e.code ?? e.message}): set ${variable} to a free port`);
}

/** Throws a StartError unless the data folder can be created and written (auth secret, embedded PostgreSQL). */
export function assertDataDirWritable(dir: string): void {
  const probe = path.join(dir, `.write-check-${process.pid}`);
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(probe, "");
    fs.rmSync(probe);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? "error";
    throw new StartError(
      `the data folder ${dir} is not writable (${code}): set LINKHOP_DATA_DIR to a folder this user can write, or fix its permissions`,
    );
  }
}

const DB_CAUSES: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host not found",
  ETIMEDOUT: "timed out",
  EHOSTUNREACH: "host unreachable",
  "28P01": "password authentication failed",
  "28000": "access refused",
  "3D000": "the database does not exist",
};

/** Host and port of a connection URL, never its user or password. */
function where(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || 5432}${u.pathname}`;
  } catch {
    return "DATABASE_URL";
  }
}

/** The line for a database that did not come up (prepareDatabase failed). */
export function databaseError(e: unknown, databaseUrl: string | undefined, embedded: boolean): StartError {
  if (e instanceof StartError) return e;
  const err = e as NodeJS.ErrnoException & { errors?: NodeJS.ErrnoException[] };
  const code = err?.code ?? err?.errors?.[0]?.code;
  const cause = code ? DB_CAUSES[code] : undefined;
  if (!embedded && cause)
    return new StartError(
      `cannot connect to the database at ${where(databaseUrl ?? "")} (${cause}): start PostgreSQL there or correct DATABASE_URL (unset, Linkhop runs its own)`,
    );
  const first = oneLine(String(err?.message ?? e).split("\n")[0]);
  if (embedded)
    return new StartError(
      `the embedded PostgreSQL did not start (${first}): see pg.log in the data folder (LINKHOP_DATA_DIR), or set DATABASE_URL`,
    );
  return new StartError(`the database is not ready (${first}): check DATABASE_URL and that the server accepts this user`);
}

/** One line for anything else that stops a start (a bad variable, a bad PLANS_FILE). */
export function startErrorLine(e: unknown): string {
  if (e instanceof StartError) return e.message;
  const message = oneLine((e as Error)?.message ?? String(e));
  if (/^PLANS_FILE /.test(message)) return `${message}: fix the file, or unset PLANS_FILE to use the built-in plans`;
  return message;
}
