// Running podman from the container test. On this kind of machine podman needs the runc runtime
// (crun refuses its cgroup layout) and /etc/containers/containers.conf as .ci/run writes it.
import { spawn, spawnSync } from "node:child_process";

export type Podman = string[];

function onPath(command: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" }).status === 0;
}

/** The podman command line to use, or null when podman is not installed. */
export function findPodman(): Podman | null {
  if (!onPath("podman")) return null;
  return onPath("runc") ? ["podman", "--runtime", "runc"] : ["podman"];
}

export type Result = { status: number | null; stdout: string; stderr: string };

/** Runs `podman args` to the end; never throws. */
export function podmanRun(podman: Podman, args: string[], input?: string): Result {
  const r = spawnSync(podman[0], [...podman.slice(1), ...args], { encoding: "utf8", input, maxBuffer: 64 * 1024 * 1024 });
  return { status: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? String(r.error ?? "") };
}

/** Runs `podman args` and returns its trimmed stdout; throws with its stderr when it fails. */
export function podmanOk(podman: Podman, args: string[]): string {
  const r = podmanRun(podman, args);
  if (r.status !== 0) throw new Error(`podman ${args.join(" ")} exited ${r.status}: ${r.stderr.trim().slice(-2000)}`);
  return r.stdout.trim();
}

/** Runs `podman args` without blocking the event loop (a build takes minutes); output goes to `onLine`. */
export function podmanAsync(podman: Podman, args: string[], onLine: (line: string) => void): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(podman[0], [...podman.slice(1), ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let rest = "";
    const take = (chunk: Buffer) => {
      const lines = (rest + chunk.toString("utf8")).split("\n");
      rest = lines.pop()!;
      for (const line of lines) onLine(line);
    };
    child.stdout.on("data", take);
    child.stderr.on("data", take);
    child.on("close", (code) => {
      if (rest) onLine(rest);
      resolve(code);
    });
    child.on("error", (e) => {
      onLine(String(e));
      resolve(null);
    });
  });
}

/** Runs a command inside a running container and parses the one JSON object the admin CLI prints. */
export function adminCli(podman: Podman, container: string, args: string[]): Record<string, unknown> {
  const r = podmanRun(podman, ["exec", container, "linkhop-admin", ...args]);
  const line = r.stdout.trim().split("\n").pop() ?? "";
  let answer: Record<string, unknown>;
  try {
    answer = JSON.parse(line);
  } catch {
    throw new Error(`linkhop-admin ${args[0]} printed no JSON (exit ${r.status}): ${r.stdout}${r.stderr.slice(-2000)}`);
  }
  if (r.status !== 0 || "error" in answer) throw new Error(`linkhop-admin ${args[0]} failed: ${line}`);
  return answer;
}
