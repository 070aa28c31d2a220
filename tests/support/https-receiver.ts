import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import https from "node:https";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";

// Real webhook receivers on loopback. createTestCa() makes a throwaway certificate authority with
// openssl (trust it in an app process with NODE_EXTRA_CA_CERTS=ca.certPath) and issues server
// certificates; startReceiver() is an HTTPS (or HTTP) server that records every request's raw
// bytes and answers as the test says.

export type TestCa = {
  dir: string;
  certPath: string;
  certPem: string;
  /** A server certificate for these DNS names (and 127.0.0.1 / ::1). */
  issue: (names: string[]) => { key: string; cert: string };
  /** A self-signed certificate no one trusts (for TLS failures). */
  untrusted: (names: string[]) => { key: string; cert: string };
  cleanup: () => void;
};

function openssl(args: string[], cwd: string) {
  execFileSync("openssl", args, { cwd, stdio: "pipe" });
}

/**
 * A new P-256 key and certificate, `<name>.key` and `<name>.crt` in dir, valid for 2 days, for
 * `subject` ("/CN=..."), with the extensions in `extFile` when given. Signed by the CA in dir
 * (ca.key, ca.crt) when `caSerial` is given (the certificate's serial number), else self-signed.
 */
function makeCert(dir: string, name: string, subject: string, opts: { extFile?: string; caSerial?: number } = {}) {
  const newKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", `${name}.key`, "-subj", subject];
  if (opts.caSerial === undefined) {
    const ext = opts.extFile ? ["-extensions", "v3", "-config", writeSelfSignedConfig(dir, name, opts.extFile)] : [];
    openssl(["req", "-x509", ...newKey, "-out", `${name}.crt`, "-days", "2", ...ext], dir);
    return;
  }
  openssl(["req", ...newKey, "-out", `${name}.csr`], dir);
  const ext = opts.extFile ? ["-extfile", opts.extFile] : [];
  const ca = ["-CA", "ca.crt", "-CAkey", "ca.key", "-set_serial", String(opts.caSerial)];
  openssl(["x509", "-req", "-in", `${name}.csr`, ...ca, "-out", `${name}.crt`, "-days", "2", ...ext], dir);
}

/** An openssl config whose [v3] section holds extFile's extensions (req -x509 reads them only from a config). */
function writeSelfSignedConfig(dir: string, name: string, extFile: string): string {
  const file = path.join(dir, `self-${name}.cnf`);
  fs.writeFileSync(file, `[req]\ndistinguished_name=dn\n[dn]\n[v3]\n${fs.readFileSync(extFile, "utf8")}`);
  return file;
}

/**
 * A new CA in a temp directory, or the one already in `existingDir` (made by another process, e.g.
 * the CA the Playwright config makes for the e2e server and the specs).
 */
export function createTestCa(existingDir?: string): TestCa {
  const dir = existingDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "linkhop-ca-"));
  if (!fs.existsSync(path.join(dir, "ca.key"))) {
    fs.mkdirSync(dir, { recursive: true });
    makeCert(dir, "ca", "/CN=Linkhop Test CA");
  }
  // file names unique across processes sharing the directory
  let serial = Math.floor(Math.random() * 1e9) * 1000;
  const ext = (names: string[]) => {
    const file = path.join(dir, `ext-${++serial}.cnf`);
    const alt = [...names.map((n) => `DNS:${n}`), "IP:127.0.0.1", "IP:::1"].join(",");
    fs.writeFileSync(
      file,
      `basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=${alt}\n`,
    );
    return file;
  };
  const read = (name: string) => fs.readFileSync(path.join(dir, name), "utf8");
  const cert = (name: string, names: string[], caSerial?: number) => {
    makeCert(dir, name, `/CN=${names[0] ?? "localhost"}`, { extFile: ext(names), caSerial });
    return { key: read(`${name}.key`), cert: read(`${name}.crt`) };
  };
  return {
    dir,
    certPath: path.join(dir, "ca.crt"),
    certPem: read("ca.crt"),
    issue(names) {
      const n = ++serial;
      return cert(`s${n}`, names, n);
    },
    untrusted: (names) => cert(`u${++serial}`, names),
    cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

export type ReceivedRequest = {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The body exactly as received. */
  raw: Buffer;
  at: number;
};

/** What to answer: a status and body, or "hang" (never answer), after an optional delay. */
export type Reply = { status?: number; body?: string | Buffer; headers?: Record<string, string>; delayMs?: number; hang?: boolean };
export type Responder = (req: ReceivedRequest, index: number) => Reply | Promise<Reply>;

export type Receiver = {
  port: number;
  /** URL for a host name (default 127.0.0.1) and path. */
  url: (host?: string, pathname?: string) => string;
  requests: ReceivedRequest[];
  respond: (fn: Responder) => void;
  waitFor: (count: number, timeoutMs?: number) => Promise<ReceivedRequest[]>;
  /** connections accepted so far, and those still open */
  connections: () => { accepted: number; open: number };
  stop: () => Promise<void>;
};

export async function startReceiver(
  opts: { tls?: { key: string; cert: string }; host?: string; respond?: Responder } = {},
): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  let responder: Responder = opts.respond ?? (() => ({ status: 200, body: "ok" }));
  const waiters: (() => void)[] = [];
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const r: ReceivedRequest = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        raw: Buffer.concat(chunks),
        at: Date.now(),
      };
      const index = requests.push(r) - 1;
      waiters.splice(0).forEach((w) => w());
      const reply = await responder(r, index);
      if (reply.delayMs) await new Promise((d) => setTimeout(d, reply.delayMs));
      if (reply.hang) return;
      res.writeHead(reply.status ?? 200, reply.headers);
      res.end(reply.body ?? "");
    });
  };
  const server = opts.tls ? https.createServer({ key: opts.tls.key, cert: opts.tls.cert }, handler) : http.createServer(handler);
  const sockets = new Set<import("node:net").Socket>();
  let accepted = 0;
  server.on("connection", (s) => {
    accepted++;
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  server.on("tlsClientError", () => {});
  await new Promise<void>((resolve) => server.listen(0, opts.host ?? "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const scheme = opts.tls ? "https" : "http";
  return {
    port,
    url: (host = "127.0.0.1", pathname = "/hook") => `${scheme}://${host}:${port}${pathname}`,
    requests,
    connections: () => ({ accepted, open: sockets.size }),
    respond: (fn) => (responder = fn),
    waitFor: (count, timeoutMs = 15_000) =>
      new Promise((resolve, reject) => {
        const deadline = setTimeout(
          () => reject(new Error(`receiver got ${requests.length} of ${count} requests in ${timeoutMs} ms`)),
          timeoutMs,
        );
        const check = () => {
          if (requests.length >= count) {
            clearTimeout(deadline);
            resolve(requests.slice(0, count));
          } else waiters.push(check);
        };
        check();
      }),
    stop: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
