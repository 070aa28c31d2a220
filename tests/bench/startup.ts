// Start-up (`npm run bench:startup`, after a build): the time from spawning the server to its
// `ready` message (it is listening), and its resident memory at that moment, for
//   - dist/server.js as `npm start` runs it (tests/support/compiled.ts),
//   - dist/server.js without --enable-source-maps (what the source maps cost),
//   - server.ts through tsx (what `npm start` ran before the build compiled it).
// Two databases: the embedded PostgreSQL, initialised by a first start that is not counted (each
// measured start starts and stops it, as `npm start` does), and a PostgreSQL already running
// (DATABASE_URL), which leaves the app's own work. The variants take turns, BENCH_RUNS starts each
// (default 5); prints medians. Figures only; it never passes or fails.
import { execFileSync, fork } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startEmbeddedPostgres } from "../../lib/db/embedded.ts";
import { nodeFlags, serverEntry } from "../support/compiled.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const root = path.resolve(import.meta.dirname, "../..");

const VARIANTS: { name: string; entry: string; execArgv: string[] }[] = [
  { name: "npm start (dist/server.js)", entry: serverEntry, execArgv: nodeFlags },
  { name: "dist/server.js, no source maps", entry: serverEntry, execArgv: nodeFlags.filter((f) => f !== "--enable-source-maps") },
  { name: "server.ts under tsx (before)", entry: path.join(root, "server.ts"), execArgv: ["--import", "tsx"] },
];

type Start = { ms: number; rssMb: number };

/** One start to `ready`, then SIGTERM and wait for the exit (the embedded PostgreSQL stops with it). */
async function startOnce(variant: (typeof VARIANTS)[number], env: NodeJS.ProcessEnv): Promise<Start> {
  let output = "";
  const t0 = performance.now();
  const child = fork(variant.entry, [], { cwd: root, execArgv: variant.execArgv, env, stdio: ["ignore", "pipe", "pipe", "ipc"] });
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  const ms = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${variant.name}: not ready in 120 s:\n${output}`)), 120_000);
    child.on("message", (m: { ready?: boolean }) => {
      if (!m?.ready) return;
      clearTimeout(timer);
      resolve(performance.now() - t0);
    });
    void exited.then((code) => reject(new Error(`${variant.name}: exited with ${code} before it was ready:\n${output}`)));
  });
  const rssKb = Number(execFileSync("ps", ["-o", "rss=", "-p", String(child.pid)], { encoding: "utf8" }).trim());
  child.kill("SIGTERM");
  const code = await exited;
  if (code !== 0) throw new Error(`${variant.name}: stopped with ${code}:\n${output}`);
  return { ms, rssMb: rssKb / 1024 };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

async function measure(label: string, env: NodeJS.ProcessEnv) {
  await startOnce(VARIANTS[0], env); // initialises the data directory, applies the migrations
  const results = new Map<string, Start[]>(VARIANTS.map((v) => [v.name, []]));
  for (let i = 0; i < RUNS; i++) for (const v of VARIANTS) results.get(v.name)!.push(await startOnce(v, env));
  console.log(`\n${label}: median of ${RUNS} starts`);
  for (const [name, starts] of results) {
    const ms = median(starts.map((s) => s.ms));
    const rss = median(starts.map((s) => s.rssMb));
    console.log(`  ${name.padEnd(34)} ${ms.toFixed(0).padStart(6)} ms to ready   ${rss.toFixed(0).padStart(4)} MB resident`);
  }
}

async function main() {
  if (!fs.existsSync(serverEntry)) throw new Error("no dist/server.js: run `npm run build` first");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "linkhop-bench-startup-"));
  const base: NodeJS.ProcessEnv = { ...process.env, PORT: "0", LINKHOP_DATA_DIR: path.join(dir, "app") };
  delete base.DATABASE_URL;
  console.log(`Node ${process.version}, ${os.cpus().length} cores`);
  try {
    await measure("embedded PostgreSQL (initialised; started and stopped by each start)", base);
    const running = await startEmbeddedPostgres(path.join(dir, "running"), "linkhop_bench");
    try {
      await measure("PostgreSQL already running (DATABASE_URL)", { ...base, DATABASE_URL: running.url });
    } finally {
      await running.stop();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
