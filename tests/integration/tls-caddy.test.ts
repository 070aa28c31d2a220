import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import https from "node:https";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import tls from "node:tls";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { setActive } from "../../lib/workspaces/index.ts";
import { startApp, type RunningApp } from "../support/app.ts";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import { freePort } from "../support/ports.ts";
import { createDomain, createLink, createWorkspace, request } from "./redirects-helpers.ts";
import { eventually } from "./webhooks-helpers.ts";

// Real Caddy (Debian's package, `caddy` on PATH; .ci/run installs it) in front of the real app,
// with the repository's deploy/Caddyfile: validated as it is, then run with only its global options
// added: high loopback ports, admin off, a storage folder of its own, certificates from Caddy's own
// authority (local_certs: no ACME here) and no trust-store install. Hosts resolve to 127.0.0.1 in
// the client (connect to 127.0.0.1, SNI and Host name the host): no DNS needed.

const root = path.resolve(import.meta.dirname, "../..");
const caddyfile = fs.readFileSync(path.join(root, "deploy/Caddyfile"), "utf8");
const hasCaddy = spawnSync("caddy", ["version"], { stdio: "ignore" }).status === 0;
if (!hasCaddy) console.log("tls-caddy.test.ts skipped: no `caddy` on PATH (.ci/run installs Debian's caddy package)");

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let caddy: ChildProcess | undefined;
let caddyOutput = "";
let dir: string;
let httpPort: number;
let httpsPort: number;
let rootCa: string;

/** The Caddyfile as the test runs it: the repository's, with these global options added. */
function adapted(storage: string): { text: string; added: string } {
  const added = ["admin off", `http_port ${httpPort}`, `https_port ${httpsPort}`, `storage file_system {\n\t\troot ${storage}\n\t}`]
    .concat(["local_certs", "skip_install_trust"])
    .map((line) => `\t${line}\n`)
    .join("");
  const at = caddyfile.indexOf("\n{\n") + 3;
  expect(at).toBeGreaterThan(2); // the global options block opens on a line of its own
  return { text: caddyfile.slice(0, at) + added + caddyfile.slice(at), added };
}

function caddyEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  // HOME and XDG folders of its own: nothing of Caddy's lands outside the test's folder
  return { ...process.env, HOME: dir, XDG_DATA_HOME: path.join(dir, "xdg-data"), XDG_CONFIG_HOME: path.join(dir, "xdg-config"), ...extra };
}

/** A TLS handshake as `servername` on Caddy's port, verified against Caddy's local root. */
function handshake(servername: string): Promise<tls.PeerCertificate> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: "127.0.0.1", port: httpsPort, servername, ca: rootCa }, () => {
      const cert = socket.getPeerCertificate();
      socket.end();
      resolve(cert);
    });
    socket.once("error", reject);
  });
}

/** GET https://<host>/<path> through Caddy. */
function getHttps(host: string, urlPath: string): Promise<{ status: number; location?: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: "127.0.0.1",
        port: httpsPort,
        servername: host,
        ca: rootCa,
        path: urlPath,
        agent: false,
        headers: { host: `${host}:${httpsPort}` },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode!, location: res.headers.location }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(port, "127.0.0.1", () => s.end(() => resolve(true)));
    s.on("error", () => resolve(false));
  });

describe.skipIf(!hasCaddy)("Caddy's on-demand TLS asking Linkhop", () => {
  let ws: Awaited<ReturnType<typeof createWorkspace>>;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "linkhop-caddy-"));
    [httpPort, httpsPort] = [await freePort(), await freePort()];
    database = await createTestDatabase();
    await useDatabaseInProcess(database.url);
    const appUrl = `https://app.caddy.test:${httpsPort}`;
    app = await startApp(database.url, { SHORT_DOMAIN: "short.caddy.test", APP_URL: appUrl, TRUST_PROXY: "1", TLS_ON_DEMAND: "1" });

    ws = await createWorkspace();
    const go = await createDomain(ws.id, "go.caddy.test");
    await createLink(ws.id, { code: "hello", domainId: go.id, url: "https://dest.example/landing" });
    await createDomain(ws.id, "wait.caddy.test", { verified: false });

    const { text } = adapted(path.join(dir, "storage"));
    fs.writeFileSync(path.join(dir, "Caddyfile"), text);
    caddy = spawn("caddy", ["run", "--config", path.join(dir, "Caddyfile"), "--adapter", "caddyfile"], {
      cwd: dir,
      env: caddyEnv({ APP_URL: appUrl, LINKHOP_UPSTREAM: `127.0.0.1:${app.port}` }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    caddy.stdout!.on("data", (d) => (caddyOutput += d));
    caddy.stderr!.on("data", (d) => (caddyOutput += d));
    const rootFile = path.join(dir, "storage/pki/authorities/local/root.crt");
    await eventually(
      async () => {
        if (caddy!.exitCode !== null) throw new Error(`caddy exited with ${caddy!.exitCode}:\n${caddyOutput}`);
        return fs.existsSync(rootFile) && (await accepts(httpsPort)) && (await accepts(httpPort));
      },
      30_000,
      "caddy listening with its local root",
    );
    rootCa = fs.readFileSync(rootFile, "utf8");
  }, 120_000);

  afterAll(async () => {
    if (caddy && caddy.exitCode === null) {
      const exited = new Promise((r) => caddy!.once("exit", r));
      caddy.kill("SIGTERM");
      await exited;
    }
    await app?.stop();
    const { disconnectDb } = await import("../../lib/db/client.ts");
    await disconnectDb();
    await database?.drop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test("the repository's Caddyfile is valid as it is, and the test adds only global options to it", () => {
    const check = spawnSync("caddy", ["validate", "--config", path.join(root, "deploy/Caddyfile"), "--adapter", "caddyfile"], {
      cwd: dir,
      env: caddyEnv({ APP_URL: "https://links.example.com" }),
      encoding: "utf8",
    });
    expect(check.status, check.stderr + check.stdout).toBe(0);
    expect(check.stdout + check.stderr).toContain("Valid configuration");
    const { text, added } = adapted("/storage");
    expect(text.replace(added, "")).toBe(caddyfile);
  });

  test("a verified custom domain gets a certificate for its name from Caddy's authority, and its short link redirects through Caddy", async () => {
    const cert = await handshake("go.caddy.test");
    expect(cert.subjectaltname).toBe("DNS:go.caddy.test");
    expect(cert.issuer.CN).toMatch(/Caddy Local Authority/);
    expect(await getHttps("go.caddy.test", "/hello")).toEqual({ status: 302, location: "https://dest.example/landing" });
    // plain HTTP on the host is sent to HTTPS
    const plain = await request(httpPort, "go.caddy.test", "/hello");
    expect([plain.status, plain.location]).toEqual([301, "https://go.caddy.test/hello"]);
  }, 60_000);

  test("the short domain gets a certificate on demand too", async () => {
    expect((await handshake("short.caddy.test")).subjectaltname).toBe("DNS:short.caddy.test");
  }, 60_000);

  test("a pending domain's handshake fails: Linkhop refuses it", async () => {
    expect((await request(app.port, "localhost", "/tls/ask?domain=wait.caddy.test")).status).toBe(404);
    await expect(handshake("wait.caddy.test")).rejects.toThrow();
  }, 60_000);

  test("after the workspace is deactivated a new host of it is refused", async () => {
    const other = await createWorkspace();
    await createDomain(other.id, "later.caddy.test");
    expect((await request(app.port, "localhost", "/tls/ask?domain=later.caddy.test")).status).toBe(200);
    await setActive(other.slug, false);
    await expect(handshake("later.caddy.test")).rejects.toThrow();
  }, 60_000);
});
