// Where a benchmark's CPU went (Linux /proc; null elsewhere), and the profiler preload for the
// server under test. Shared by bench:redirect and bench:api.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const TICKS = 100; // USER_HZ on Linux

/** User and system CPU seconds of a process and its reaped children ([0, 0] when gone). */
export function processTimes(pid: number): [user: number, system: number] {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "latin1");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // fields 14-17 (utime, stime, cutime, cstime) are 11-14 after the name
    return [(Number(f[11]) + Number(f[13])) / TICKS, (Number(f[12]) + Number(f[14])) / TICKS];
  } catch {
    return [0, 0];
  }
}

export const processCpu = (pid: number) => processTimes(pid)[0] + processTimes(pid)[1];

/**
 * CPU seconds of a process's main thread (the JavaScript; its thread id is the process id): the
 * rest of processCpu is its other threads (libuv's pool, which runs crypto.scrypt, and V8's helpers).
 */
export function mainThreadCpu(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/task/${pid}/stat`, "latin1");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) / TICKS;
  } catch {
    return 0;
  }
}

/** The postmaster and all its live child processes (backends, writers), summed. */
export function postgresCpu(postmaster: number): number {
  let total = processCpu(postmaster);
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, "latin1");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === postmaster) total += processCpu(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

export type CpuProbe = { serverPid: number; postmasterPid: number | null };
export type CpuSnapshot = { generator: number; server: number; serverSystem: number; serverMainThread: number; postgres: number };

/** CPU seconds so far: this process (the load generator), the server under test, PostgreSQL. */
export function cpuSnapshot(p: CpuProbe): CpuSnapshot | null {
  if (!fs.existsSync("/proc/self/stat")) return null;
  const own = process.cpuUsage();
  return {
    generator: (own.user + own.system) / 1e6,
    server: processCpu(p.serverPid),
    serverSystem: processTimes(p.serverPid)[1],
    serverMainThread: mainThreadCpu(p.serverPid),
    postgres: p.postmasterPid ? postgresCpu(p.postmasterPid) : 0,
  };
}

/** Cores busy between two snapshots taken `seconds` apart. */
export function coresBusy(before: CpuSnapshot | null, after: CpuSnapshot | null, seconds: number): CpuSnapshot | null {
  if (!before || !after) return null;
  return {
    generator: (after.generator - before.generator) / seconds,
    server: (after.server - before.server) / seconds,
    serverSystem: (after.serverSystem - before.serverSystem) / seconds,
    serverMainThread: (after.serverMainThread - before.serverMainThread) / seconds,
    postgres: (after.postgres - before.postgres) / seconds,
  };
}

/** The PID of the postmaster of an embedded cluster under `dataDir`, when it runs. */
export function postmasterPid(dataDir: string): number | null {
  const file = path.join(dataDir, "postmaster.pid");
  return fs.existsSync(file) ? Number(fs.readFileSync(file, "utf8").split("\n")[0]) : null;
}

/**
 * NODE_OPTIONS for the server under test: BENCH_SERVER_NODE_OPTIONS, plus, with `profileFile`, a
 * preloaded module that samples the server from start to exit (--cpu-prof is not allowed in
 * NODE_OPTIONS; a preload is). Open the file in Chrome DevTools or read it with a script.
 */
export function serverNodeOptions(profileFile: string | undefined): string | undefined {
  const parts = [process.env.BENCH_SERVER_NODE_OPTIONS ?? ""];
  if (profileFile) {
    const preloadDir = fs.mkdtempSync(path.join(os.tmpdir(), "linkhop-prof-"));
    process.on("exit", () => fs.rmSync(preloadDir, { recursive: true, force: true }));
    const preload = path.join(preloadDir, "profile.mjs");
    // the same-thread inspector session answers synchronously, so the profile can be taken in "exit"
    fs.writeFileSync(
      preload,
      `import { Session } from "node:inspector";
import fs from "node:fs";
const session = new Session();
session.connect();
session.post("Profiler.enable");
session.post("Profiler.setSamplingInterval", { interval: 200 });
session.post("Profiler.start");
process.on("exit", () => {
  session.post("Profiler.stop", (err, r) => {
    if (!err) fs.writeFileSync(${JSON.stringify(path.resolve(profileFile))}, JSON.stringify(r.profile));
  });
});
`,
    );
    parts.push(`--import ${preload}`);
  }
  const options = parts.join(" ").trim();
  return options || undefined;
}
