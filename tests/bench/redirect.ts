// Redirect throughput, in one run and with one load generator (`npm run bench:redirect`, after a
// build: `NEXT_DIST_DIR=.next-x node scripts/build.mjs`, then the same NEXT_DIST_DIR here):
//   (a) a bare Node http server answering 302 from a Map: the ceiling on this machine
//   (b) Linkhop (the real server.ts, Next loaded) redirecting one link from its warm cache
//   (c) Linkhop cache misses: every request a different existing code (one database read each)
//   (e) (b) on a routed link: 5 rules (the last one matches), 3 A/B variants, forwardQuery and
//       forwardPath, visited at /<code>/<rest>?<query> (lib/redirects/decide.ts, forward.ts)
//   (d) (b) on a link whose clicks one webhook endpoint receives (link.clicked, scoped to that link,
//       at the Business plan's delivery rate): every click is owed to the endpoint, as a delivery
//       written by its cursor or a click still behind it (docs/clicks.md); both are printed.
//       Each round runs right after that round's (a), so (d)/(a) compares two cases measured at the
//       same moment; it is printed per round and as the median of the rounds' ratios.
// The endpoint takes its deliveries only while (d) runs: during the other cases its receiver holds
// the requests it gets (unanswered, within the app's WEBHOOK_TIMEOUT_MS), so the engine, at its
// per-endpoint limit of attempts in flight, sends nothing more and the backlog that (d) left is not
// charged to (a), (b), (c) or (e). A held request is answered when (d) starts.
// Each for BENCH_SECONDS (default 5, after 1 s of warm-up) at BENCH_CONNECTIONS (default 64)
// keep-alive connections, in BENCH_ROUNDS rounds (default 3; each case reports its median round). The generator is a small raw-socket HTTP/1.1 client (no pipelining)
// running in this process, so it shares the machine's cores with the server under test.
// Prints figures only; it never passes or fails on timing.
// Each case also prints where the machine's CPU went during its measured seconds (Linux /proc):
// the load generator (this process), the server under test, and PostgreSQL (all its processes).
// For profiling: BENCH_CASES=ab runs only those cases; BENCH_SERVER_CPU_PROFILE=<file.cpuprofile>
// samples Linkhop's server from start to exit (open the file in Chrome DevTools or read it with a
// script); BENCH_SERVER_NODE_OPTIONS is passed to it as NODE_OPTIONS.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { startEmbeddedPostgres } from "../../lib/db/embedded.ts";
import { applyMigrations } from "../../lib/db/migrate.ts";
import { startApp } from "../support/app.ts";
import { postmasterPid, serverNodeOptions, type CpuProbe } from "./cpu.ts";
import { load as httpLoad } from "./http-load.ts";
import { createTestCa, startReceiver, type Receiver } from "../support/https-receiver.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 1);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const MISS_LINKS = Number(process.env.BENCH_MISS_LINKS ?? 300_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CASES = process.env.BENCH_CASES ?? "abcde";
const CPU_PROFILE = process.env.BENCH_SERVER_CPU_PROFILE;
const SHORT = "short.bench";

type Result = {
  name: string;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  statuses: Record<number, number>;
  redirectsIncludingWarmup: number;
  /** CPU seconds per measured second: generator, server under test, PostgreSQL */
  cpu: { generator: number; server: number; serverSystem: number; postgres: number } | null;
};

// ---- load generator ---------------------------------------------------------------------------

// a browser's User-Agent: a bot's (or an HTTP library's) visits are redirected but not counted
const BROWSER =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Safari/537.36 Edg/125.0.2535.67";

async function load(name: string, port: number, nextPath: () => string, host: string, probe: CpuProbe): Promise<Result> {
  let redirects = 0;
  const r = await httpLoad({
    name,
    port,
    clients: CONNECTIONS,
    warmupSeconds: WARMUP_SECONDS,
    seconds: SECONDS,
    probe,
    next: () => ({ method: "GET", path: nextPath(), headers: { Host: host, "User-Agent": BROWSER } }),
    onResponse: (status) => {
      if (status === 302) redirects++;
    },
  });
  const { counted: _counted, countedByName: _byName, ...result } = r;
  return { ...result, redirectsIncludingWarmup: redirects };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---- (a) the ceiling ------------------------------------------------------------------------

const BARE_SERVER = `
const http = require("node:http");
const links = new Map([["bench", "https://example.com/destination"]]);
const server = http.createServer((req, res) => {
  const url = links.get(req.url.slice(1));
  if (url) { res.writeHead(302, { Location: url }); res.end(); }
  else { res.writeHead(404); res.end(); }
});
server.keepAliveTimeout = 65000;
server.listen(0, "127.0.0.1", () => process.send({ port: server.address().port }));
process.on("SIGTERM", () => process.exit(0)); // an exit, so a --cpu-prof profile is written
`;

function startBareServer(): Promise<{ port: number; child: ChildProcess }> {
  // profiled too when the server is (BENCH_SERVER_CPU_PROFILE), for comparing the two
  const profile = CPU_PROFILE
    ? [
        "--cpu-prof",
        "--cpu-prof-interval=200",
        `--cpu-prof-dir=${path.dirname(path.resolve(CPU_PROFILE))}`,
        `--cpu-prof-name=bare.cpuprofile`,
      ]
    : [];
  const child = spawn(process.execPath, [...profile, "-e", BARE_SERVER], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  return new Promise((resolve) => child.once("message", (m: { port: number }) => resolve({ port: m.port, child })));
}

/**
 * Holds (d)'s deliveries while the other cases run: closed, the receiver answers nothing until it
 * opens again. close() returns once the engine has stopped sending (no new request for half a
 * second), so the measured seconds that follow see no delivery work.
 */
function deliveryGate(receiver: Receiver) {
  let release: (() => void) | null = null;
  let held = Promise.resolve();
  receiver.respond(async () => {
    await held;
    return { status: 200, body: "ok" };
  });
  return {
    async close() {
      if (!release) held = new Promise<void>((r) => (release = r));
      for (let seen = -1; seen !== receiver.requests.length;) {
        seen = receiver.requests.length;
        await sleep(500);
      }
    },
    open() {
      release?.();
      release = null;
    },
  };
}

// ---- Linkhop on a fresh database ------------------------------------------------------------

const ROUTED = {
  forwardQuery: true,
  forwardPath: true,
  rules: [
    { url: "https://example.com/r1", countries: ["DE", "AT", "CH"] },
    { url: "https://example.com/r2", languages: ["fr"] },
    { url: "https://example.com/r3", devices: ["tablet"] },
    { url: "https://example.com/r4", os: ["ios"], days: [1, 2, 3, 4, 5], hours: [9, 17], timeZone: "Europe/Berlin" },
    { url: "https://example.com/r5", query: { ref: "bench", utm_source: "*" } },
  ],
  variants: [
    { url: "https://example.com/a", weight: 34 },
    { url: "https://example.com/b", weight: 33 },
    { url: "https://example.com/c", weight: 33 },
  ],
};
const ROUTED_PATH = "/benchr/docs/page?utm_source=mail&ref=bench&x=1";

async function prepareDatabase(receiverUrl: string): Promise<{ url: string; postmasterPid: number | null; stop: () => Promise<void> }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "linkhop-bench-"));
  const embedded = await startEmbeddedPostgres(dir, "linkhop_bench");
  await applyMigrations(embedded.url);
  const client = new pg.Client({ connectionString: embedded.url });
  await client.connect();
  const ws = await client.query(`insert into "Workspace" (slug, name, plan) values ('bench', 'Bench', 'business') returning id`);
  const wsId = ws.rows[0].id;
  await client.query(`insert into "Link" ("workspaceId", code, url) values ($1, 'bench', 'https://example.com/destination')`, [wsId]);
  // codes m0, m1, ...: each requested once in (c)
  await client.query(
    `insert into "Link" ("workspaceId", code, url) select $1, 'm' || i, 'https://example.com/m/' || i from generate_series(0, $2 - 1) as i`,
    [wsId, MISS_LINKS],
  );
  // (e): a routed link; rules 1-4 each fail on one condition (a country lookup of the address, a
  // language, a device, an OS in a time zone), the fifth matches on the query
  await client.query(
    `insert into "Link" ("workspaceId", code, url, routing) values ($1, 'benchr', 'https://example.com/routed?src=link', $2)`,
    [wsId, JSON.stringify(ROUTED)],
  );
  // (d): its own link, and an endpoint receiving that link's clicks (webhook:create --events link.clicked --links benchd)
  const d = await client.query(
    `insert into "Link" ("workspaceId", code, url) values ($1, 'benchd', 'https://example.com/d') returning id`,
    [wsId],
  );
  await client.query(
    `insert into "WebhookEndpoint" ("workspaceId", url, secret, "allEvents", events, "clickLinkIds")
     values ($1, $2, 'whsec_bench', false, '{link.clicked}', $3)`,
    [wsId, receiverUrl, [d.rows[0].id]],
  );
  await client.query(`analyze "Link"`);
  await client.end();
  return {
    url: embedded.url,
    postmasterPid: postmasterPid(path.join(dir, "pg")),
    stop: async () => {
      await embedded.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The link.clicked owed for one code's clicks: deliveries written (delivered or waiting), and counted clicks behind the endpoint's cursor. */
async function owedDeliveries(url: string, code: string): Promise<{ delivered: number; written: number; behind: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  // one statement, so one snapshot: the cursor reader writes deliveries and moves the cursor in one
  // transaction, and two statements could fall on either side of it (its clicks counted in neither)
  const { rows } = await client.query(
    `select (select count(*)::int from "Delivery" d join "WebhookEvent" e on e.id = d."eventId"
              where e.type = 'link.clicked' and (e.body::jsonb -> 'data' -> 'link' ->> 'code') = $1) as written,
            (select count(*)::int from "Delivery" d join "WebhookEvent" e on e.id = d."eventId"
              where e.type = 'link.clicked' and (e.body::jsonb -> 'data' -> 'link' ->> 'code') = $1 and d.status = 'delivered') as delivered,
            (select count(*)::int from analytics.click_event e join "Link" l on l.id = e.link_id, analytics.click_cursor c
              where l.code = $1 and not e.bot and c.name like 'clicked:%' and (e.tx, e.seq) > (c.tx, c.seq)) as behind`,
    [code],
  );
  await client.end();
  return { delivered: rows[0].delivered, written: rows[0].written, behind: rows[0].behind };
}

/** Link.clicks and the stored click events (lib/analytics) of one code. */
async function storedClicks(url: string, code: string): Promise<{ clicks: number; events: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows } = await client.query(
    `select l.clicks, (select count(*)::int from analytics.click_event e where e.link_id = l.id and not e.bot) as events
     from "Link" l where l."domainKey" = 0 and l.code = $1`,
    [code],
  );
  await client.end();
  return rows[0];
}

// ---- the run ----------------------------------------------------------------------------------

function print(r: Result) {
  const perRequest = (cores: number) => `${((cores / r.rps) * 1e6).toFixed(1)} µs`;
  const other = Object.entries(r.statuses).filter(([s]) => s !== "302");
  console.log(
    `${r.name.padEnd(34)} ${r.rps.toFixed(0).padStart(8)} req/s   p50 ${r.p50.toFixed(2).padStart(6)} ms   p99 ${r.p99.toFixed(2).padStart(6)} ms` +
      `   (${r.requests} requests${r.errors ? `, ${r.errors} socket errors` : ""}${other.length ? `, non-302: ${JSON.stringify(Object.fromEntries(other))}` : ""})` +
      (r.cpu
        ? `\n${"".padEnd(36)}CPU cores busy: generator ${r.cpu.generator.toFixed(2)}, server ${r.cpu.server.toFixed(2)}, postgres ${r.cpu.postgres.toFixed(2)}` +
          `; per request: generator ${perRequest(r.cpu.generator)}, server ${perRequest(r.cpu.server)} (system ${perRequest(r.cpu.serverSystem)}), postgres ${perRequest(r.cpu.postgres)}`
        : ""),
  );
}

async function main() {
  console.log(
    `redirect benchmark: ${CONNECTIONS} connections, ${SECONDS} s per case after ${WARMUP_SECONDS} s warm-up, ${os.cpus().length} cores, Node ${process.version}`,
  );
  console.log(`preparing a database with ${MISS_LINKS + 2} links ...`);
  // (d)'s webhook receiver: real HTTPS on loopback, certificate from a throwaway CA the server trusts
  const ca = createTestCa();
  const receiver = await startReceiver({ tls: ca.issue(["localhost"]) });
  const gate = deliveryGate(receiver);
  const database = await prepareDatabase(receiver.url("localhost", "/clicks"));
  const bare = await startBareServer();
  const app = await startApp(database.url, {
    SHORT_DOMAIN: SHORT,
    APP_URL: "http://app.bench",
    WEBHOOK_ALLOW_PRIVATE: "1",
    // a request held by the closed gate must not time out before (d) opens it again
    WEBHOOK_TIMEOUT_MS: "120000",
    NODE_EXTRA_CA_CERTS: ca.certPath,
    NODE_OPTIONS: serverNodeOptions(CPU_PROFILE) ?? process.env.NODE_OPTIONS,
  }).catch(async (e) => {
    bare.child.kill();
    await database.stop();
    await receiver.stop();
    throw e;
  });
  // never leave the servers behind (an orphaned server.ts with a closed stdout pipe spins in
  // Next's error logging)
  process.on("exit", () => {
    bare.child.kill();
    app.process.kill("SIGKILL");
  });
  process.once("SIGINT", () => {
    bare.child.kill();
    void app
      .stop()
      .then(() => database.stop())
      .finally(() => process.exit(130));
  });
  try {
    // Rounds of every case back to back, so a change in the machine's other load hits them all;
    // each case reports its median round.
    const rounds: Record<"a" | "b" | "c" | "d" | "e", Result[]> = { a: [], b: [], c: [], d: [], e: [] };
    const bareProbe = { serverPid: bare.child.pid!, postmasterPid: database.postmasterPid };
    const appProbe = { serverPid: app.process.pid!, postmasterPid: database.postmasterPid };
    let next = 0;
    for (let round = 1; round <= ROUNDS; round++) {
      console.log(`round ${round}/${ROUNDS}`);
      await gate.close();
      if (CASES.includes("a")) {
        rounds.a.push(await load("(a) bare node http, Map, 302", bare.port, () => "/bench", SHORT, bareProbe));
        print(rounds.a.at(-1)!);
      }
      if (CASES.includes("b")) {
        rounds.b.push(await load("(b) Linkhop, warm cache", app.port, () => "/bench", SHORT, appProbe));
        print(rounds.b.at(-1)!);
      }
      if (CASES.includes("c")) {
        rounds.c.push(await load("(c) Linkhop, cache misses", app.port, () => `/m${next++}`, SHORT, appProbe));
        print(rounds.c.at(-1)!);
      }
      if (CASES.includes("e")) {
        rounds.e.push(await load("(e) Linkhop, routed link, warm", app.port, () => ROUTED_PATH, SHORT, appProbe));
        print(rounds.e.at(-1)!);
      }
      if (CASES.includes("d")) {
        gate.open();
        rounds.d.push(await load("(d) (b) + link.clicked webhook", app.port, () => "/benchd", SHORT, appProbe));
        print(rounds.d.at(-1)!);
      }
    }
    gate.open();
    if (next > MISS_LINKS)
      console.log(`note: (c) sent ${next} requests for ${MISS_LINKS} codes; later ones may have hit the cache (raise BENCH_MISS_LINKS)`);
    const median = (list: Result[]) => [...list].sort((x, y) => x.rps - y.rps)[Math.floor(list.length / 2)];
    const [a, b, c, d, e] = [median(rounds.a), median(rounds.b), median(rounds.c), median(rounds.d), median(rounds.e)];
    console.log(`\nmedian of ${ROUNDS} round(s):`);
    for (const r of [a, b, c, e, d]) if (r) print(r);
    if (a && b)
      console.log(
        `(b)/(a) = ${(b.rps / a.rps).toFixed(2)}   (goal: >= 0.8 with click events on, p99 under 20 ms; (b) p99 ${b.p99.toFixed(2)} ms)`,
      );
    if (a && b && ROUNDS > 1) console.log(`(b)/(a) per round: ${rounds.b.map((r, i) => (r.rps / rounds.a[i].rps).toFixed(2)).join(" ")}`);
    // server CPU per redirect of the routed link against the plain one, round by round (same load on the machine)
    const serverPerRequest = (r: Result) => (r.cpu ? r.cpu.server / r.rps : NaN);
    if (b && e) {
      const perRound = rounds.e.map((r, i) => serverPerRequest(r) / serverPerRequest(rounds.b[i]));
      const sorted = [...perRound].sort((x, y) => x - y);
      console.log(
        `(e)/(b) server CPU per redirect: median ${sorted[Math.floor(sorted.length / 2)].toFixed(2)}, per round ${perRound.map((x) => x.toFixed(2)).join(" ")}   (goal: <= 1.25)`,
      );
    }
    // counting stays exact under load: every redirect of (b) is in Link.clicks and is one stored
    // click event after a flush
    await sleep(2000);
    const sent = rounds.b.reduce((n, r) => n + r.redirectsIncludingWarmup, 0);
    const stored = await storedClicks(database.url, "bench");
    console.log(`clicks stored for (b): ${stored.clicks} of ${sent} redirects${stored.clicks === sent ? " (exact)" : " (MISMATCH)"}`);
    console.log(`click events stored for (b): ${stored.events} of ${sent} redirects${stored.events === sent ? " (exact)" : " (MISMATCH)"}`);
    if (stored.clicks !== sent || stored.events !== sent) process.exitCode = 1;
    if (a && d) {
      const perRound = rounds.d.map((r, i) => r.rps / rounds.a[i].rps);
      const sorted = [...perRound].sort((x, y) => x - y);
      console.log(
        `(d)/(a) = ${sorted[Math.floor(sorted.length / 2)].toFixed(2)} (median of the rounds' ratios; of the medians ${(d.rps / a.rps).toFixed(2)})   (goal: >= 0.4; (d) p99 ${d.p99.toFixed(2)} ms)`,
      );
      console.log(`(d)/(a) per round: ${perRound.map((x) => x.toFixed(2)).join(" ")}`);
      // every counted redirect of (d) is owed to the endpoint: a delivery its cursor wrote, or a click behind it
      const sentD = rounds.d.reduce((n, r) => n + r.redirectsIncludingWarmup, 0);
      // (d)'s last clicks may still be in the pipeline's batch: wait for them first
      for (let waited = 0; (await storedClicks(database.url, "benchd")).events < sentD && waited < 60; waited++) await sleep(1000);
      const clicksD = await storedClicks(database.url, "benchd");
      console.log(`click events stored for (d): ${clicksD.events} of ${sentD} redirects`);
      const owed = await owedDeliveries(database.url, "benchd");
      const sum = owed.written + owed.behind;
      console.log(
        `link.clicked owed for (d): ${owed.written} written as deliveries (${owed.delivered} delivered) + ${owed.behind} waiting behind the endpoint's cursor = ${sum} of ${sentD} redirects${sum === sentD ? " (exact)" : " (MISMATCH)"}`,
      );
      const conns = receiver.connections();
      console.log(
        `deliveries received so far by (d)'s endpoint: ${receiver.requests.length}, over ${conns.accepted} TLS connections (${conns.open} still open)`,
      );
      if (b?.cpu && d.cpu) {
        const pgPerClick = (r: Result) => (r.cpu!.postgres / r.rps) * 1e6;
        console.log(`PostgreSQL CPU per click, (d)/(b) = ${(pgPerClick(d) / pgPerClick(b)).toFixed(2)}   (goal: <= 1.5)`);
      }
      if (sum !== sentD) process.exitCode = 1;
    }
  } finally {
    bare.child.kill();
    await app.stop();
    await database.stop();
    await receiver.stop();
    ca.cleanup();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
