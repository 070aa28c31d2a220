import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { log, startLog } from "../../lib/log/index.ts";
import { prettyLine } from "../../lib/log/pretty.ts";
import { acceptRequestId, newRequestId } from "../../lib/log/request-id.ts";
import { peekShared, setShared } from "../../lib/registry.ts";
import { logRecords, type LogRecord } from "../support/logs.ts";

const root = path.resolve(import.meta.dirname, "../..");

// Linkhop's own code logs through lib/log only; what is allowed to call console.* is listed here.
const CONSOLE_ALLOWED: Record<string, string> = {
  // the sample webhook receiver shown on the docs page: text in a template string, not code that runs
  "app/docs/webhooks/page.tsx": "a code sample",
};

function sources(dir: string): string[] {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) return rel === path.join("lib", "db", "generated") ? [] : sources(rel);
    return /\.tsx?$/.test(e.name) ? [rel] : [];
  });
}

describe("one logger", () => {
  it("no console.* call in lib/, app/, components/, inngest/, server.ts or instrumentation.ts", () => {
    const files = [...["lib", "app", "components", "inngest"].flatMap(sources), "server.ts", "instrumentation.ts"];
    expect(files.length).toBeGreaterThan(100);
    // a call or a reference (console.error passed as a callback); lib/log assigning console.* is neither
    const use = /\bconsole\.(log|info|warn|error|debug|trace|dir|table)\b(?!\s*=[^=])/;
    const offenders = files.filter((f) => !(f in CONSOLE_ALLOWED) && use.test(fs.readFileSync(path.join(root, f), "utf8")));
    expect(offenders).toEqual([]);
    for (const f of Object.keys(CONSOLE_ALLOWED)) expect(fs.readFileSync(path.join(root, f), "utf8")).toMatch(use);
  });
});

describe("request ids", () => {
  it("a new id has the shape of an error reference and is new every time", () => {
    const ids = new Set(Array.from({ length: 100 }, newRequestId));
    expect(ids.size).toBe(100);
    for (const id of ids) expect(id).toMatch(/^err_[0-9a-f]{16}$/);
  });

  it("a client's id is kept when it is 1 to 100 safe characters, else replaced by a new one", () => {
    for (const kept of ["f81d4fae-7dec-11d0-a765-00a0c91e6bf6", "req_1:2.3", "A", "x".repeat(100), "01HZX3J5K6"]) {
      expect(acceptRequestId(kept)).toBe(kept);
    }
    for (const refused of [
      undefined,
      null,
      "",
      "x".repeat(101),
      "a b",
      "a, b",
      "id\r\nX-Evil: 1",
      "<script>",
      "ünïcode",
      "-leading",
      ["a", "b"],
    ]) {
      const id = acceptRequestId(refused);
      expect(id, String(refused)).toMatch(/^err_[0-9a-f]{16}$/);
    }
  });
});

describe("records", () => {
  const saved = peekShared("log");
  afterEach(() => setShared("log", saved));

  function capture(level: "info" | "warn" = "info") {
    const lines: string[] = [];
    startLog({ format: "json", level, stream: { write: (l: string) => void lines.push(l) } });
    return lines;
  }

  it("are JSON lines with the level's name, an ISO time, the area, the fields and the message", () => {
    const lines = capture();
    log("webhooks").warn({ endpointId: 7 }, "endpoint 7 disabled");
    expect(lines).toHaveLength(1);
    expect(lines[0].endsWith("\n")).toBe(true);
    const record = JSON.parse(lines[0]);
    expect(record).toMatchObject({ level: "warn", area: "webhooks", endpointId: 7, msg: "endpoint 7 disabled", pid: process.pid });
    expect(new Date(record.time).toISOString()).toBe(record.time);
  });

  it("an error field keeps type, message, code, stack and cause, not the driver's other properties", () => {
    const lines = capture();
    const cause = new Error("socket closed");
    const e = Object.assign(new Error("query failed", { cause }), {
      code: "57P01",
      detail: "Key (email)=(a@b.test)",
      parameters: ["secret-value"],
    });
    log("db").error({ err: e }, "failed");
    const { err } = JSON.parse(lines[0]);
    expect(err).toMatchObject({ type: "Error", message: "query failed", code: "57P01", cause: { message: "socket closed" } });
    expect(err.stack).toMatch(/query failed\n\s+at /);
    expect(lines[0]).not.toContain("a@b.test");
    expect(lines[0]).not.toContain("secret-value");
  });

  it("fields named like a secret are redacted (a safety net: callers do not pass them)", () => {
    const lines = capture();
    log("api").info(
      {
        password: "pw-1",
        key: "lh_key",
        token: "tok-1",
        secret: "whsec_1",
        authorization: "Bearer lh_2",
        ip: "203.0.113.9",
        headers: { cookie: "session=1", "x-forwarded-for": "198.51.100.1" },
        body: { password: "pw-2", token: "tok-2" },
      },
      "request",
    );
    for (const secret of ["pw-1", "lh_key", "tok-1", "whsec_1", "lh_2", "203.0.113.9", "session=1", "198.51.100.1", "pw-2", "tok-2"])
      expect(lines[0]).not.toContain(secret);
    expect(JSON.parse(lines[0])).toMatchObject({ password: "[redacted]", body: { token: "[redacted]" } });
  });

  it("records below LOG_LEVEL are not written", () => {
    const lines = capture("warn");
    log("x").info("dropped");
    log("x").warn("kept");
    expect(logRecords(lines.join("")).map((r) => r.msg)).toEqual(["kept"]);
  });

  it("pretty: one line a record, fields after the message's first line, the stack below", () => {
    const record: LogRecord = {
      level: "error",
      time: "2026-11-25T12:04:05.120Z",
      pid: 1,
      area: "api",
      requestId: "err_0123456789abcdef",
      path: "/api/v1/links",
      msg: "server_error POST /api/v1/links",
      err: { message: "boom", stack: "Error: boom\n    at f (x.ts:1:1)" },
    };
    expect(prettyLine(record)).toBe(
      "12:04:05.120 ERROR [api] server_error POST /api/v1/links requestId=err_0123456789abcdef path=/api/v1/links\n" +
        "    Error: boom\n        at f (x.ts:1:1)\n",
    );
    expect(prettyLine({ level: "info", time: "2026-11-25T12:04:05.120Z", area: "mail", msg: "to a@b: Hi\nline 2", to: ["a@b"] })).toBe(
      '12:04:05.120 INFO  [mail] to a@b: Hi to=["a@b"]\nline 2\n',
    );
  });
});

/** Runs `code` (an ES module using lib/log) in a fresh Node.js with `env`; its stdout and stderr. */
function run(code: string, env: Record<string, string>): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const { LOG_FORMAT: _f, LOG_LEVEL: _l, LINKHOP_DEV: _d, ...base } = process.env;
    execFile(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", code],
      { cwd: root, env: { ...base, ...env }, timeout: 30_000 },
      (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve({ stdout, stderr })),
    );
  });
}

const SCRIPT = (setup: string) =>
  `import { log, startLog } from "./lib/log/index.ts"; ${setup}; log("t").info("to low"); log("t").warn("to high"); log("t").debug("hidden");`;

describe("output", () => {
  it("json by default: info and below on stdout, warnings and errors on stderr; pretty with LOG_FORMAT=pretty or LINKHOP_DEV=1", async () => {
    const json = await run(SCRIPT(""), {});
    expect(logRecords(json.stdout).map((r) => [r.level, r.msg])).toEqual([["info", "to low"]]);
    expect(logRecords(json.stderr).map((r) => [r.level, r.msg])).toEqual([["warn", "to high"]]);
    expect(json.stdout.trim().split("\n")).toHaveLength(1);

    for (const env of [{ LOG_FORMAT: "pretty" }, { LINKHOP_DEV: "1" }] as Record<string, string>[]) {
      const pretty = await run(SCRIPT(""), env);
      expect(pretty.stdout, JSON.stringify(env)).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}\[t\] to low\n$/);
      expect(pretty.stderr, JSON.stringify(env)).toMatch(/^\d\d:\d\d:\d\d\.\d{3} WARN {2}\[t\] to high\n$/);
    }

    const debug = await run(SCRIPT(""), { LOG_LEVEL: "debug" });
    expect(logRecords(debug.stdout).map((r) => r.msg)).toEqual(["to low", "hidden"]);
  }, 60_000);

  it("the admin CLI's way: everything on stderr, nothing on stdout", async () => {
    const cli = await run(SCRIPT(`startLog({ to: "stderr" })`), {});
    expect(cli.stdout).toBe("");
    expect(logRecords(cli.stderr).map((r) => r.msg)).toEqual(["to low", "to high"]);
  }, 30_000);
});
