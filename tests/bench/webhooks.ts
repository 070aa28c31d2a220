// Webhook delivery figures on the built-in scheduler (`npm run bench:webhooks`, after a build:
// `NEXT_DIST_DIR=.next-x node scripts/build.mjs`, then the same NEXT_DIST_DIR here):
//   (a) deliveries per second from one app process to an HTTPS receiver on loopback, for a backlog
//       spread over 1 endpoint and over 20 endpoints (connections kept alive per endpoint, every
//       delivery signed and logged as an attempt), with the CPU of the app and of the receiver apart;
//   (b) p50/p99 time from the API's 201 (POST /api/v1/links) to the receiver having the request.
// The receiver answers 200 at once. Sizes: BENCH_DELIVERIES (default 2000) per throughput run,
// BENCH_LINKS (default 200) API calls for the latency run. Prints figures only; it never passes
// or fails on timing. BENCH_SERVER_CPU_PROFILE=<file.cpuprofile> samples the app process.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { startEmbeddedPostgres } from "../../lib/db/embedded.ts";
import { applyMigrations } from "../../lib/db/migrate.ts";
import { startApp } from "../support/app.ts";
import { serverNodeOptions } from "./cpu.ts";
import { createTestCa, startReceiver, type ReceivedRequest } from "../support/https-receiver.ts";

const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 2000);
const LINKS = Number(process.env.BENCH_LINKS ?? 200);

/** CPU seconds (user + system) a process has used so far, from Linux /proc; null elsewhere. */
function processCpuSeconds(pid: number): number | null {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (100/s)
  } catch {
    return null;
  }
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "linkhop-bench-webhooks-"));
  const ca = createTestCa();
  const pgServer = await startEmbeddedPostgres(path.join(dir, "pg"), "postgres");
  const url = new URL(pgServer.url);
  const admin = new pg.Client({ connectionString: pgServer.url });
  await admin.connect();
  await admin.query("create database bench");
  await admin.end();
  url.pathname = "/bench";
  const databaseUrl = url.toString();
  await applyMigrations(databaseUrl);

  // A plan without an API rate limit so the API is not the bottleneck of the latency run.
  const plansFile = path.join(dir, "plans.json");
  fs.writeFileSync(
    plansFile,
    JSON.stringify({
      plans: {
        bench: {
          name: "Bench",
          rateLimit: null,
          liveKeys: 5,
          maxLinks: 10_000_000,
          webhookEndpoints: 25,
          // the per-endpoint delivery rate (lib/webhooks/pacing.ts) high enough not to be what is measured
          webhookRatePerSecond: 10_000,
          features: ["ApiAccess", "Webhooks", "BulkLinks"],
        },
      },
    }),
  );
  const env = { WEBHOOK_ALLOW_PRIVATE: "1", PLANS_FILE: plansFile, APP_URL: "http://localhost:3000" };
  Object.assign(process.env, env, { DATABASE_URL: databaseUrl });

  const { createUser } = await import("../../lib/auth/users.ts");
  const { createWorkspace } = await import("../../lib/workspaces/index.ts");
  const { createEndpoint } = await import("../../lib/webhooks/index.ts");
  const { withEvents } = await import("../../lib/events/index.ts");
  const { createApiKey } = await import("../../lib/keys/index.ts");
  const { db, disconnectDb } = await import("../../lib/db/client.ts");

  const tls = ca.issue(["localhost"]);
  const received: { at: number; req: ReceivedRequest }[] = [];
  let onReceive: ((r: ReceivedRequest, at: number) => void) | undefined;
  const receiver = await startReceiver({
    tls,
    respond: (req) => {
      const at = performance.now();
      received.push({ at, req });
      onReceive?.(req, at);
      return { status: 200, body: "ok" };
    },
  });

  await createUser({ email: "bench@example.test", password: "bench-password-1" });
  let n = 0;
  const workspace = async (endpoints: number) => {
    const w = await createWorkspace({ slug: `bench-${++n}`, name: `Bench ${n}`, owner: "bench@example.test", plan: "bench" });
    const ws = await db().workspace.findUniqueOrThrow({ where: { id: w.id } });
    for (let i = 0; i < endpoints; i++) await createEndpoint(ws.id, { url: receiver.url("localhost", `/w${n}/e${i}`) });
    return ws;
  };

  const app = await startApp(databaseUrl, {
    ...env,
    NODE_EXTRA_CA_CERTS: ca.certPath,
    NODE_OPTIONS: serverNodeOptions(process.env.BENCH_SERVER_CPU_PROFILE) ?? process.env.NODE_OPTIONS,
  });
  const results: string[] = [];
  try {
    // (a) throughput: a backlog written while parked (due tomorrow), then released at once.
    for (const endpoints of [1, 20]) {
      const ws = await workspace(endpoints);
      const events = Math.ceil(DELIVERIES / endpoints);
      const parked = new Date(Date.now() + 86_400_000);
      for (let i = 0; i < events; i += 50) {
        await withEvents(async (_tx, emit) => {
          for (let j = i; j < Math.min(events, i + 50); j++)
            await emit(ws, "member.joined", { member: { id: j, email: `m${j}@example.test`, role: "member", via: "added" } }, parked);
        });
      }
      const total = events * endpoints;
      received.length = 0;
      const accepted0 = receiver.connections().accepted;
      const done = new Promise<void>((resolve) => (onReceive = () => received.length >= total && resolve()));
      const t0 = performance.now();
      const appCpu0 = processCpuSeconds(app.process.pid!);
      const ownCpu0 = process.cpuUsage();
      await db().delivery.updateMany({
        where: { endpoint: { workspaceId: ws.id }, status: "pending" },
        data: { nextAttemptAt: new Date() },
      });
      await done;
      const seconds = (performance.now() - t0) / 1000;
      const appCpu = (processCpuSeconds(app.process.pid!) ?? NaN) - (appCpu0 ?? NaN);
      const own = process.cpuUsage(ownCpu0);
      const receiverCpu = (own.user + own.system) / 1e6;
      await new Promise((r) => setTimeout(r, 500));
      const attempts = await db().deliveryAttempt.count({ where: { delivery: { endpoint: { workspaceId: ws.id } } } });
      results.push(
        `throughput, ${endpoints} endpoint${endpoints > 1 ? "s" : ""}: ${total} deliveries in ${seconds.toFixed(2)} s = ${(total / seconds).toFixed(0)} deliveries/s (attempts logged: ${attempts}, connections opened: ${receiver.connections().accepted - accepted0})` +
          `\n    CPU cores busy during the run: app ${(appCpu / seconds).toFixed(2)}, receiver (this process) ${(receiverCpu / seconds).toFixed(2)}; machine load average ${os.loadavg()[0].toFixed(1)}` +
          `\n    app CPU per delivery: ${((appCpu / total) * 1e6).toFixed(0)} µs (the claim, the read, the check, the request and its record)`,
      );
    }

    // (b) latency from the API's 201 to the receiver's receipt (one request at a time).
    const ws = await workspace(1);
    const { key } = await createApiKey(ws, { name: "bench" });
    const receiptAt = new Map<string, number>();
    onReceive = (req, at) => {
      const body = JSON.parse(req.raw.toString("utf8")) as { type: string; data: { link?: { code: string } } };
      if (body.type === "link.created" && body.data.link) receiptAt.set(body.data.link.code, at);
    };
    const latencies: number[] = [];
    for (let i = 0; i < LINKS; i++) {
      const res = await fetch(`${app.url}/api/v1/links`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ url: `https://example.com/bench/${i}` }),
      });
      const at201 = performance.now();
      const link = (await res.json()) as { code: string };
      if (res.status !== 201) throw new Error(`POST /api/v1/links answered ${res.status}: ${JSON.stringify(link)}`);
      for (let w = 0; !receiptAt.has(link.code) && w < 1000; w++) await new Promise((r) => setTimeout(r, 1));
      // Negative when the delivery arrived before the client finished reading the 201.
      latencies.push((receiptAt.get(link.code) ?? NaN) - at201);
    }
    const sorted = latencies.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
    results.push(
      `API 201 -> receipt (${sorted.length} of ${LINKS} links): p50 ${pct(sorted, 50).toFixed(1)} ms, p99 ${pct(sorted, 99).toFixed(1)} ms, max ${sorted[sorted.length - 1].toFixed(1)} ms`,
    );
  } finally {
    await app.stop();
    await receiver.stop();
    await disconnectDb();
    await pgServer.stop();
    ca.cleanup();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\nWebhook delivery on the built-in scheduler (${os.cpus().length} cores, HTTPS receiver on loopback, one app process)`);
  for (const r of results) console.log(`  ${r}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
