import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, expect, test } from "vitest";
import { call, client, makeWorkspace } from "../support/api.ts";
import { startApp, type RunningApp } from "../support/app.ts";
import { adminCli, nodeFlags } from "../support/compiled.ts";
import { useDatabaseInProcess } from "../support/db.ts";
import { eventually } from "../support/eventually.ts";

// `npm run admin -- backup` / `restore` (lib/db/backup) on the app's embedded PostgreSQL: a backup
// taken while the API keeps creating links holds everything committed before it started, and the
// app started on the restored data directory serves it.

const root = path.resolve(import.meta.dirname, "../..");
const BROWSER = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:126.0) Gecko/20100101 Firefox/126.0";
const work = fs.mkdtempSync(path.join(os.tmpdir(), "linkhop-backup-"));
const apps: RunningApp[] = [];
const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close().catch(() => {});
  await Promise.all(apps.map((a) => a.stop()));
  fs.rmSync(work, { recursive: true, force: true });
});

type CliRun = { code: number | null; json: any; stdout: string; stderr: string };

/** The admin CLI on the embedded database under `dataDir` (no DATABASE_URL unless `env` sets one). */
function admin(dataDir: string, args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeFlags, adminCli, ...args], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: undefined, LINKHOP_DATA_DIR: dataDir, ...env },
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("error", reject);
    child.on("close", (code) => {
      let json: unknown = null;
      try {
        json = JSON.parse(out.trim());
      } catch {}
      resolve({ code, json, stdout: out, stderr: err });
    });
  });
}

/** The app as `npm start` runs it on the embedded database under `dataDir`, generating its own auth secret. */
async function startEmbeddedApp(dataDir: string): Promise<RunningApp> {
  const app = await startApp("", {
    DATABASE_URL: undefined,
    AUTH_SECRET: undefined,
    LINKHOP_DATA_DIR: dataDir,
    WEBHOOK_ALLOW_PRIVATE: "1",
    CLICK_FLUSH_MS: "100",
  });
  apps.push(app);
  return app;
}

function embeddedUrl(dataDir: string): string {
  const meta = JSON.parse(fs.readFileSync(path.join(dataDir, "pg.json"), "utf8"));
  return `postgresql://${meta.user}:${meta.password}@127.0.0.1:${meta.port}/linkhop`;
}

/** Every row that matters, as comparable strings: links, keys, events, deliveries, click events. */
async function rows(url: string): Promise<Record<string, string[]>> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const list = async (sql: string) => (await c.query(sql)).rows.map((r) => JSON.stringify(r));
    return {
      links: await list(`select id, code, url from "Link" order by id`),
      keys: await list(`select id, hash, "revokedAt" from "ApiKey" order by id`),
      events: await list(`select id, type from "WebhookEvent" order by id`),
      deliveries: await list(`select id, "eventId", "endpointId" from "Delivery" order by id`),
      clicks: await list(`select at, link_id, visitor, device from analytics.click_event order by at, link_id, visitor`),
    };
  } finally {
    await c.end();
  }
}

test("a backup taken while links are being created restores everything committed before it started, and the restored app serves it", async () => {
  const receiver = http.createServer((req, res) => req.resume().on("end", () => res.end("ok")));
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  closers.push(() => new Promise((r) => receiver.close(r)));

  const original = path.join(work, "original");
  const app = await startEmbeddedApp(original);
  await useDatabaseInProcess(embeddedUrl(original));
  closers.push(async () => (await import("../../lib/runtime.ts")).currentRuntime()?.close());
  const { workspace, key } = await makeWorkspace("business");
  const { db } = await import("../../lib/db/client.ts");
  await db().webhookEndpoint.create({
    data: {
      workspaceId: workspace.id,
      url: `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`,
      secret: "whsec_" + "s".repeat(48),
    },
  });
  const api = client(app, key);

  // a link (its link.created event is delivered to the endpoint) and clicks on it, stored
  const first = await api.post("/api/v1/links", { url: "https://example.com/first" });
  expect(first.status).toBe(201);
  const code: string = first.body.code;
  for (let i = 0; i < 3; i++) {
    const hop = await call(app, "GET", `/${code}`, { headers: { host: "localhost:3000", "user-agent": BROWSER } });
    expect(hop.status).toBe(302);
  }
  const before = await eventually(
    async () => {
      const r = await rows(embeddedUrl(original));
      return r.clicks.length >= 3 && r.deliveries.length >= 1 && r;
    },
    15_000,
    "the clicks and the delivery to be stored",
  );
  expect(before.keys).toHaveLength(1);

  // the API keeps creating links before, while and after the backup runs
  let writing = true;
  const created: { code: string; at: number }[] = [];
  const writer = (async () => {
    for (let i = 0; writing; i++) {
      const r = await api.post("/api/v1/links", { url: `https://example.com/w/${i}` });
      if (r.status === 201) created.push({ code: r.body.code, at: Date.now() });
    }
  })();
  await eventually(async () => created.length >= 5, 15_000, "the writer to be creating links");

  const committed = await rows(embeddedUrl(original));
  const backupStarted = Date.now();
  const file = path.join(work, "linkhop.backup.tar.gz");
  const backup = await admin(original, ["backup", "--out", file]);
  const backupEnded = Date.now();
  writing = false;
  await writer;
  expect(backup, backup.stderr).toMatchObject({ code: 0, json: { file, bytes: fs.statSync(file).size } });
  expect(created.filter((c) => c.at > backupStarted && c.at < backupEnded).length, "links created while the backup ran").toBeGreaterThan(0);
  expect(fs.statSync(file).mode & 0o077, "the file holds the database password: its owner's only").toBe(0);

  await (await import("../../lib/runtime.ts")).currentRuntime()?.close();
  expect(await app.stop()).toBe(0);

  const restoredDir = path.join(work, "restored");
  const [restore, withDatabaseUrl] = await Promise.all([
    admin(restoredDir, ["restore", "--from", file]),
    admin(restoredDir, ["backup", "--out", path.join(work, "other.tar.gz")], { DATABASE_URL: "postgresql://linkhop@127.0.0.1:1/linkhop" }),
  ]);
  expect(restore, restore.stderr).toMatchObject({ code: 0, json: { restored: path.join(restoredDir, "pg") } });
  expect(withDatabaseUrl).toMatchObject({ code: 1, json: { error: "conflict", message: expect.stringContaining("pg_dump") } });
  expect(fs.existsSync(path.join(work, "other.tar.gz"))).toBe(false);
  // the generated auth secret comes along: it encrypts the stored two-factor secrets
  expect(fs.readFileSync(path.join(restoredDir, "auth-secret"), "utf8")).toBe(fs.readFileSync(path.join(original, "auth-secret"), "utf8"));

  const again = await admin(restoredDir, ["restore", "--from", file]);
  expect(again).toMatchObject({ code: 1, json: { error: "conflict", message: expect.stringContaining("is not empty") } });

  const restoredApp = await startEmbeddedApp(restoredDir);
  const after = await rows(embeddedUrl(restoredDir));
  for (const kind of Object.keys(committed)) {
    const missing = committed[kind].filter((row) => !after[kind].includes(row));
    expect(missing, `${kind} committed before the backup started and missing after the restore`).toEqual([]);
  }
  expect(after.links.length).toBeGreaterThanOrEqual(committed.links.length);

  const hop = await call(restoredApp, "GET", `/${code}`, { headers: { host: "localhost:3000", "user-agent": BROWSER } });
  expect([hop.status, hop.headers.location]).toEqual([302, "https://example.com/first"]);
  const last = created.filter((c) => c.at < backupStarted).at(-1)!;
  const viaKey = await client(restoredApp, key).get(`/api/v1/links/${last.code}`);
  expect([viaKey.status, viaKey.body?.code]).toEqual([200, last.code]);
}, 120_000);
