// `compose config` on compose.yaml with whichever compose tool is installed (Docker Compose v2,
// podman 4.7+'s `podman compose`, or a standalone docker-compose): it resolves the file as the tool
// would for `up`, so a key the tool rejects fails here. Run in a scratch folder with .env.example
// filled in as .env, as a user would have it. tests/unit/compose-file.test.ts checks the file's
// content everywhere.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const TOOLS = [["docker", "compose"], ["podman", "compose"], ["docker-compose"]];

export type ComposeCheck = { skipped: string } | { tool: string; status: number | null; output: string };

export function checkComposeWithTool(root: string): ComposeCheck {
  const tool = TOOLS.find(([cmd, ...sub]) => spawnSync(cmd, [...sub, "version"], { stdio: "ignore" }).status === 0);
  if (!tool) return { skipped: "no `docker compose`, `podman compose` or `docker-compose` here" };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "linkhop-compose-"));
  try {
    fs.copyFileSync(path.join(root, "compose.yaml"), path.join(dir, "compose.yaml"));
    const env = fs
      .readFileSync(path.join(root, ".env.example"), "utf8")
      .replace(/^AUTH_SECRET=$/m, "AUTH_SECRET=compose-check-secret-0123456789abcdef")
      .replace(/^POSTGRES_PASSWORD=$/m, "POSTGRES_PASSWORD=composecheck0123");
    fs.writeFileSync(path.join(dir, ".env"), env);
    const [cmd, ...sub] = tool;
    const r = spawnSync(cmd, [...sub, "--profile", "replicas", "config"], { cwd: dir, encoding: "utf8" });
    return { tool: tool.join(" "), status: r.status, output: `${r.stdout ?? ""}${r.stderr ?? ""}` };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
