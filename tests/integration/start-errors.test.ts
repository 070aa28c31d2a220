import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { nodeFlags, serverEntry } from "../support/compiled.ts";

// What stops a start (lib/config/start-errors.ts), as `npm start` runs (dist/server.js, real
// processes): a taken port, a data folder that cannot be written, a DATABASE_URL that refuses, a bad
// PLANS_FILE. Each prints one line saying what and what to do, exits 1, and leaves no PostgreSQL
// running (none is found among the machine's processes with the test's data folder).
const root = path.resolve(import.meta.dirname, "../..");
let tmp: string;
let taken: net.Server;
let takenPort: number;
let closedPort: number;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "linkhop-start-errors-"));
  taken = net.createServer();
  await new Promise<void>((r) => taken.listen(0, r)); // every address, as the server listens
  takenPort = (taken.address() as net.AddressInfo).port;
  const probe = net.createServer();
  await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
  closedPort = (probe.address() as net.AddressInfo).port;
  await new Promise((r) => probe.close(r));
});
afterAll(async () => {
  await new Promise((r) => taken?.close(r));
  fs.rmSync(tmp, { recursive: true, force: true });
});

type Run = { code: number | null; lines: string[]; ms: number };

/**
 * Starts the server with `env` (no DATABASE_URL unless given) and waits for it to exit, 60 s at
 * most; `onLine` sees each output line as it comes.
 */
function start(env: Record<string, string>, format = "pretty", onLine?: (line: string) => void): Promise<Run> {
  const { DATABASE_URL: _d, PLANS_FILE: _p, LINKHOP_DATA_DIR: _l, AUTH_SECRET: _a, METRICS_PORT: _m, ...base } = process.env;
  const began = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeFlags, serverEntry], {
      cwd: root,
      env: { ...base, NODE_ENV: "production", LOG_FORMAT: format, PORT: "0", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    const take = (d: Buffer) => {
      const before = out.length;
      out += d;
      if (onLine)
        for (const line of out
          .slice(out.lastIndexOf("\n", before - 1) + 1)
          .split("\n")
          .slice(0, -1))
          onLine(line);
    };
    child.stdout.on("data", take);
    child.stderr.on("data", take);
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`still running after 60 s:\n${out}`));
    }, 60_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, lines: out.split("\n").filter((l) => l.trim() !== ""), ms: Date.now() - began });
    });
  });
}

/** Processes whose command line names `dir` (an embedded PostgreSQL started there). */
function processesUsing(dir: string): string[] {
  const found: string[] = [];
  for (const pid of fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ");
      if (cmd.includes(dir)) found.push(`${pid}: ${cmd}`);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

function expectOneLine(run: Run, pattern: RegExp) {
  expect(run.code, run.lines.join("\n")).toBe(1);
  expect(run.lines, run.lines.join("\n")).toHaveLength(1);
  expect(run.lines[0]).toMatch(/FATAL \[linkhop\] cannot start: /);
  expect(run.lines[0]).toMatch(pattern);
}

describe("start-up errors: one line, exit 1, nothing left running", () => {
  test("a taken port", async () => {
    const data = path.join(tmp, "port");
    const run = await start({ PORT: String(takenPort), LINKHOP_DATA_DIR: data });
    expectOneLine(run, new RegExp(`port ${takenPort} is already in use: stop what listens there, or set PORT to a free port`));
    expect(processesUsing(data)).toEqual([]);
  });

  test("a port taken after the embedded PostgreSQL started: the same line, and PostgreSQL stopped", async () => {
    const data = path.join(tmp, "late");
    const late = net.createServer();
    let grabbed = false;
    // the port is free when the server checks it; it is taken as soon as the database is up, before
    // the server listens (Next.js and the runtime take seconds to prepare in between)
    const run = await start({ PORT: String(closedPort), LINKHOP_DATA_DIR: data }, "pretty", (line) => {
      if (!grabbed && /embedded PostgreSQL started/.test(line)) {
        grabbed = true;
        late.listen(closedPort);
      }
    });
    await new Promise((r) => late.close(r));
    expect(grabbed, run.lines.join("\n")).toBe(true);
    expect(run.code, run.lines.join("\n")).toBe(1);
    const high = run.lines.filter((l) => / (WARN|ERROR|FATAL) /.test(l));
    expect(high, run.lines.join("\n")).toEqual([expect.stringContaining(`cannot start: port ${closedPort} is already in use`)]);
    expect(fs.existsSync(path.join(data, "pg", "PG_VERSION"))).toBe(true); // it did start
    expect(processesUsing(data)).toEqual([]);
    expect(fs.existsSync(path.join(data, "pg", "postmaster.pid"))).toBe(false);
  });

  test("a taken METRICS_PORT names that variable", async () => {
    const run = await start({ METRICS_PORT: String(takenPort), LINKHOP_DATA_DIR: path.join(tmp, "metrics") });
    expectOneLine(run, /set METRICS_PORT to a free port/);
  });

  test("a data folder that cannot be written", async () => {
    const file = path.join(tmp, "a-file");
    fs.writeFileSync(file, "");
    const data = path.join(file, "data");
    const run = await start({ LINKHOP_DATA_DIR: data });
    expectOneLine(run, /the data folder .*a-file\/data is not writable \(ENOTDIR\): set LINKHOP_DATA_DIR to a folder this user can write/);
    expect(processesUsing(data)).toEqual([]);
  });

  test("a DATABASE_URL that refuses, without printing its password", async () => {
    const run = await start({
      DATABASE_URL: `postgresql://someone:s3cret-pw@127.0.0.1:${closedPort}/linkhop`,
      AUTH_SECRET: "test-secret-test-secret-test-secret",
    });
    expectOneLine(
      run,
      new RegExp(
        `cannot connect to the database at 127\\.0\\.0\\.1:${closedPort}/linkhop \\(connection refused\\): start PostgreSQL there or correct DATABASE_URL`,
      ),
    );
    expect(run.lines[0]).not.toContain("s3cret-pw");
  });

  test("a bad PLANS_FILE, as a JSON log record too", async () => {
    const plans = path.join(tmp, "plans.json");
    fs.writeFileSync(plans, "{ not json");
    const data = path.join(tmp, "plans-data");
    const run = await start({ PLANS_FILE: plans, LINKHOP_DATA_DIR: data }, "json");
    expect(run.code).toBe(1);
    expect(run.lines).toHaveLength(1);
    const record = JSON.parse(run.lines[0]);
    expect(record).toMatchObject({ level: "fatal", area: "linkhop" });
    expect(record.msg).toMatch(
      /^cannot start: PLANS_FILE .*plans\.json: cannot read JSON .*: fix the file, or unset PLANS_FILE to use the built-in plans$/,
    );
    expect(processesUsing(data)).toEqual([]);
  });
});
