import { fork, type ChildProcess } from "node:child_process";
import path from "node:path";
import { nodeFlags, serverEntry } from "./compiled.ts";
import { logRecords, renderLogLine, type LogRecord } from "./logs.ts";

export type RunningApp = {
  url: string;
  port: number;
  process: ChildProcess;
  /** stdout and stderr as a person reads them: each JSON log line as LOG_FORMAT=pretty prints it */
  logs: () => string;
  /** stdout and stderr as the app wrote them */
  rawLogs: () => string;
  /** the log records among them */
  records: () => LogRecord[];
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
};

const root = path.resolve(import.meta.dirname, "../..");

/**
 * Starts the real server as `npm start` runs it (dist/server.js, the built Next app) on a free port
 * against `databaseUrl`.
 * Extra env overrides the defaults (e.g. WEBHOOK_ALLOW_PRIVATE, PLANS_FILE, SHORT_DOMAIN).
 */
export async function startApp(databaseUrl: string, env: Record<string, string | undefined> = {}): Promise<RunningApp> {
  let output = "";
  // complete lines rendered once, as they come (so an offset into logs() stays valid as it grows)
  let rendered = "";
  let renderedUpTo = 0;
  const render = () => {
    const end = output.lastIndexOf("\n") + 1;
    if (end > renderedUpTo) {
      for (const line of output.slice(renderedUpTo, end - 1).split("\n")) rendered += renderLogLine(line);
      renderedUpTo = end;
    }
    return rendered + output.slice(renderedUpTo);
  };
  const child = fork(serverEntry, [], {
    cwd: root,
    execArgv: nodeFlags,
    env: {
      ...process.env,
      NODE_ENV: "production",
      DATABASE_URL: databaseUrl,
      PORT: "0",
      AUTH_SECRET: "test-secret-test-secret-test-secret",
      APP_URL: "http://localhost:3000",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`app did not start in 60 s:\n${output}`)), 60_000);
    child.on("message", (m: { ready?: boolean; port?: number }) => {
      if (m?.ready) {
        clearTimeout(timer);
        resolve(m.port!);
      }
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`app exited with ${code} before it was ready:\n${output}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    process: child,
    logs: render,
    rawLogs: () => output,
    records: () => logRecords(output),
    stop: (signal = "SIGTERM") =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        child.once("exit", (code) => resolve(code));
        child.kill(signal);
      }),
  };
}
