// Runs the Prisma CLI with the wasm stand-in for its schema engine (see engine.mjs).
//
//   const { status, stdout, stderr } = await runPrisma(["migrate", "diff", ...], { DATABASE_URL });
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
export const root = path.resolve(here, "../..");
export const engineBinary = path.join(here, "schema-engine");
const prismaCli = path.join(root, "node_modules/prisma/build/index.js");

export function runPrisma(args, env = {}) {
  return new Promise((resolve, reject) => {
    // The CLI's own entry with this Node, not npx: saves about a second per call.
    const child = spawn(process.execPath, [prismaCli, ...args], {
      cwd: root,
      env: {
        ...process.env,
        PRISMA_SCHEMA_ENGINE_BINARY: engineBinary,
        PRISMA_HIDE_UPDATE_MESSAGE: "1",
        CHECKPOINT_DISABLE: "1", // no telemetry ping (no network here anyway)
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}
