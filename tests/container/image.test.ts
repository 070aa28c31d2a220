// The container image, built and run for real with podman (`npm test -- container`, which skips
// with one line where podman is absent; .ci/run installs it). Builds the Dockerfile from a base
// made on this machine (tests/container/base-image.ts), checks what the runtime stage holds, then
// runs it with the embedded database on a volume: healthy, a user and an API key made with the
// admin CLI inside the container, a link made through the API and followed from the host, SIGTERM
// (a graceful stop within 20 s, the clicks stored), and a new container on the same volume that
// still has the link and its clicks. Prints the image size, build and start-to-healthy times.
import assert from "node:assert/strict";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { ensureBaseImage } from "./base-image.ts";
import { checkComposeWithTool } from "./compose-tool.ts";
import { adminCli, findPodman, podmanAsync, podmanOk, podmanRun, type Podman } from "./podman.ts";

const root = path.resolve(import.meta.dirname, "../..");
const IMAGE = "localhost/linkhop:test";
// The deps and build stages stay tagged, as the cache of the next run: the same sources build in
// seconds, and changed ones from the installed packages on. Build-stage images of earlier runs lose
// their tag and are removed by their label.
const DEPS_IMAGE = "localhost/linkhop-deps:test";
const BUILD_IMAGE = "localhost/linkhop-build:test";
const BUILD_LABEL = "org.linkhop.stage=build";
const BROWSER = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36";
const figures: string[] = [];
const log = (msg: string) => console.log(`[container] ${msg}`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

async function waitFor<T>(what: string, deadlineMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${deadlineMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const podman = findPodman() as Podman;
const suffix = `${process.pid}`;
const volume = `linkhop-test-${suffix}`;
const containers: string[] = [];
let port = 0;
let broken = false;

/** One step of the scenario; after a failed step the later ones are skipped, not failed again. */
function step(name: string, fn: () => Promise<void> | void, timeout = 120_000) {
  it(name, { timeout }, async (t) => {
    if (broken) return t.skip("an earlier step failed");
    try {
      await fn();
    } catch (e) {
      broken = true;
      throw e;
    }
  });
}

/** Starts the image on the test volume; returns the container's name and the time to healthy. */
async function startContainer(label: string): Promise<{ name: string; healthyMs: number }> {
  const name = `linkhop-test-${label}-${suffix}`;
  containers.push(name);
  const started = Date.now();
  podmanOk(podman, [
    ...["run", "-d", "--name", name, "-p", `127.0.0.1:${port}:3000`, "-v", `${volume}:/data`],
    // Clicks are flushed only at the stop: the clicks seen after the restart prove the SIGTERM flush.
    ...["-e", `APP_URL=http://localhost:${port}`, "-e", "CLICK_FLUSH_MS=600000", IMAGE],
  ]);
  await waitFor(`${name} healthy`, 90_000, async () => {
    const res = await fetch(`http://127.0.0.1:${port}/healthz`);
    return res.ok ? true : undefined;
  });
  return { name, healthyMs: Date.now() - started };
}

function follow(code: string) {
  return fetch(`http://127.0.0.1:${port}/${code}`, { redirect: "manual", headers: { "User-Agent": BROWSER } });
}

describe("container image", { skip: podman ? false : "podman is not installed" }, () => {
  let code = "";
  let apiKey = "";
  let first = "";

  before(async () => {
    port = await freePort();
  });

  after(() => {
    for (const name of containers) podmanRun(podman, ["rm", "-f", "-t", "0", name]);
    podmanRun(podman, ["volume", "rm", "-f", volume]);
    console.log(`\n[container] figures\n${figures.map((f) => `  ${f}`).join("\n")}`);
  });

  step(
    "builds from the Dockerfile on a locally made base",
    async () => {
      // LINKHOP_TEST_NODE_IMAGE: build from that image instead (e.g. node:22-bookworm-slim where a registry is reachable).
      const base = process.env.LINKHOP_TEST_NODE_IMAGE || ensureBaseImage(podman, log);
      const previous = podmanRun(podman, ["image", "inspect", "--format", "{{.Id}}", IMAGE]).stdout.trim();
      // The host's CAs (a TLS-inspecting proxy may sit between these machines and the npm
      // registry): NODE_EXTRA_CA_CERTS when set, else the system bundle, which trusts what the host does.
      const ca = [process.env.NODE_EXTRA_CA_CERTS, "/etc/ssl/certs/ca-certificates.crt"].find((f) => f && fs.existsSync(f)) ?? null;
      const caArgs = ca
        ? ["-v", `${fs.realpathSync(ca)}:/etc/ssl/build-ca.pem:ro`, "--build-arg", "NODE_EXTRA_CA_CERTS=/etc/ssl/build-ca.pem"]
        : [];
      const tail: string[] = [];
      let steps = 0;
      let fromCache = 0;
      const build = async (args: string[]) => {
        const status = await podmanAsync(
          podman,
          ["build", "--format", "docker", "--network", "host", ...caArgs, "--build-arg", `NODE_IMAGE=${base}`, ...args, root],
          (line) => {
            if (/^(\[\d+\/\d+\] )?STEP \d+\/\d+: (?!FROM )/.test(line)) steps++;
            if (/^--> Using cache /.test(line)) fromCache++;
            if (tail.push(line) > 200) tail.shift();
          },
        );
        if (status !== 0) throw new Error(`podman build ${args.join(" ")} failed:\n${tail.join("\n")}`);
      };
      const t = Date.now();
      await build(["--target", "deps", "-t", DEPS_IMAGE]);
      await build(["--target", "build", "-t", BUILD_IMAGE]);
      await build(["-t", IMAGE]);
      figures.push(`image build: ${seconds(Date.now() - t)} (${fromCache} of ${steps} steps from podman's cache)`);
      if (previous && previous !== podmanOk(podman, ["image", "inspect", "--format", "{{.Id}}", IMAGE])) {
        podmanRun(podman, ["rmi", previous]);
      }
      podmanRun(podman, ["image", "prune", "-f", "--filter", `label=${BUILD_LABEL}`]);
      const bytes = Number(podmanOk(podman, ["image", "inspect", "--format", "{{.Size}}", IMAGE]));
      figures.push(`image size: ${(bytes / 1e6).toFixed(0)} MB uncompressed`);
    },
    1_500_000,
  );

  step("the image runs as a non-root user, exposes 3000, checks /healthz and keeps /data in a volume", () => {
    const config = JSON.parse(podmanOk(podman, ["image", "inspect", "--format", "{{json .Config}}", IMAGE]));
    assert.equal(config.User, "linkhop");
    assert.ok("3000/tcp" in config.ExposedPorts);
    assert.ok("/data" in config.Volumes);
    assert.match(
      JSON.parse(podmanOk(podman, ["image", "inspect", "--format", "{{json .HealthCheck}}", IMAGE])).Test.join(" "),
      /\/healthz/,
    );
    assert.deepEqual(config.Entrypoint, ["tini", "--"]);
  });

  step("the runtime stage holds no build toolchain, dev dependencies, sources, tests or Playwright", () => {
    const absent = [
      ...["typescript", "esbuild", "@esbuild", "prisma", "@prisma/studio-core", "tailwindcss", "@tailwindcss", "vitest", "tsx"],
      ...["playwright", "playwright-core", "@playwright", "@next/swc-linux-x64-gnu", "dependency-cruiser", "prettier"],
    ].map((p) => `node_modules/${p}`);
    absent.push("tests", "app", "lib", "server.ts", "tsconfig.json", "next.config.ts", ".next/cache/webpack", ".next/cache/turbopack");
    const script = `for p in ${absent.join(" ")}; do [ -e "/app/$p" ] && echo "/app/$p"; done; for c in gcc cc make g++ python3; do command -v $c; done; true`;
    const present = podmanOk(podman, ["run", "--rm", "--network", "none", "--entrypoint", "sh", IMAGE, "-c", script]);
    assert.equal(present, "", `present in the runtime image:\n${present}`);
  });

  step("starts with the embedded database on a volume and becomes healthy", async () => {
    podmanOk(podman, ["volume", "create", volume]);
    const { name, healthyMs } = await startContainer("first");
    first = name;
    figures.push(`start to healthy (new volume: initdb, migrations): ${seconds(healthyMs)}`);
    const health = podmanRun(podman, ["healthcheck", "run", first]);
    assert.equal(health.status, 0, `the image's HEALTHCHECK failed: ${health.stdout}${health.stderr}`);
    assert.equal((await fetch(`http://127.0.0.1:${port}/readyz`)).status, 200);
  });

  step("every process runs as the non-root user, PostgreSQL without unshare", () => {
    const script = "for s in /proc/[0-9]*/status; do awk '/^Name:/{n=$2} /^Uid:/{print n, $2}' \"$s\"; done";
    const processes = podmanOk(podman, ["exec", first, "sh", "-c", script]).split("\n");
    const uid = podmanOk(podman, ["exec", first, "id", "-u", "linkhop"]);
    assert.ok(
      processes.some((p) => p.startsWith("postgres ")),
      processes.join("\n"),
    );
    for (const p of processes) assert.equal(p.split(" ")[1], uid, `not the linkhop user: ${p}`);
    assert.ok(!processes.some((p) => p.startsWith("unshare ")));
  });

  step("the admin CLI in the container makes a user, a workspace and an API key", () => {
    const email = "owner@example.com";
    assert.equal(adminCli(podman, first, ["user:create", "--email", email, "--password", "a long container password"]).email, email);
    adminCli(podman, first, ["workspace:create", "--slug", "acme", "--name", "Acme", "--owner", email, "--plan", "team"]);
    apiKey = String(adminCli(podman, first, ["key:create", "--slug", "acme", "--name", "container test"]).key);
    assert.match(apiKey, /^lh_/);
  });

  step("a link made through the API is followed from the host, three times", async () => {
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/links`, {
      method: "POST",
      headers: { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" },
      body: JSON.stringify({ url: "https://example.com/from-the-container" }),
    });
    assert.equal(res.status, 201, await res.clone().text());
    code = ((await res.json()) as { code: string }).code;
    for (let i = 0; i < 3; i++) {
      const hop = await follow(code);
      assert.equal(hop.status, 302);
      assert.equal(hop.headers.get("location"), "https://example.com/from-the-container");
    }
  });

  step("SIGTERM stops it gracefully within 20 s", () => {
    // podman stop sends SIGTERM, then SIGKILL after --time: a kill would exit 137 with no "stopped" line.
    const t = Date.now();
    podmanOk(podman, ["stop", "--time", "20", first]);
    figures.push(`SIGTERM to stopped: ${seconds(Date.now() - t)}`);
    assert.equal(podmanOk(podman, ["inspect", "--format", "{{.State.ExitCode}}", first]), "0");
    const logs = podmanRun(podman, ["logs", first]);
    assert.match(logs.stdout + logs.stderr, /"msg":"stopped"/);
  });

  step("a new container on the same volume has the link and the clicks counted before the stop", async () => {
    const { healthyMs } = await startContainer("again");
    figures.push(`start to healthy (existing volume): ${seconds(healthyMs)}`);
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/links/${code}`, { headers: { Authorization: `Bearer ${apiKey}` } });
    assert.equal(res.status, 200);
    const link = (await res.json()) as { url: string; clicks: number };
    assert.equal(link.url, "https://example.com/from-the-container");
    assert.equal(link.clicks, 3);
    assert.equal((await follow(code)).status, 302);
  });

  it("compose.yaml passes `compose config` where a compose tool is installed", () => {
    const result = checkComposeWithTool(root);
    if ("skipped" in result) log(`compose config not run: ${result.skipped} (tests/unit/compose-file.test.ts checks the file)`);
    else assert.equal(result.status, 0, `${result.tool} config:\n${result.output}`);
  });
});
