// The local base image the container test builds from, where no image registry is reachable: Debian
// 12 (debootstrap --variant=minbase, with tini and CA certificates) plus this machine's own `node`
// and npm, in the places the official node images keep them. Made once per Node.js version and
// recipe (about 2 minutes) and kept in podman's image store, so later runs reuse it.
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

// Bump when the recipe below changes: the tag names the recipe, so an old base is not reused.
const RECIPE = 1;
const PACKAGES = ["tini", "ca-certificates"];

export function baseImageName(nodeVersion = process.version): string {
  return `localhost/linkhop-node-base:${nodeVersion.replace(/^v/, "")}-r${RECIPE}`;
}

/** The Debian mirror apt uses here (the first URIs line of debian.sources), else deb.debian.org. */
function debianMirror(): string {
  const file = "/etc/apt/sources.list.d/debian.sources";
  const text = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "";
  const uri = /^URIs:\s*(\S+)/m.exec(text)?.[1];
  return uri && !/security/.test(uri) ? uri : "http://deb.debian.org/debian";
}

/** npm's package directory next to the running node (/usr/lib/node_modules or /usr/local/lib/...). */
function npmDir(): string {
  const prefix = path.dirname(path.dirname(fs.realpathSync(process.execPath)));
  const dir = path.join(prefix, "lib", "node_modules", "npm");
  if (!fs.existsSync(path.join(dir, "bin", "npm-cli.js"))) throw new Error(`npm not found next to ${process.execPath} (${dir})`);
  return dir;
}

function imageExists(podman: string[], name: string): boolean {
  return spawnSync(podman[0], [...podman.slice(1), "image", "exists", name]).status === 0;
}

/** Makes the base image unless podman already has it; returns its name. */
export function ensureBaseImage(podman: string[], log: (msg: string) => void): string {
  const name = baseImageName();
  if (imageExists(podman, name)) {
    log(`base image ${name}: cached`);
    return name;
  }
  if (spawnSync("sh", ["-c", "command -v debootstrap"], { stdio: "ignore" }).status !== 0) {
    throw new Error(`no base image ${name} and no debootstrap to make it: apt-get install -y debootstrap (.ci/run does)`);
  }
  const started = Date.now();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "linkhop-base-"));
  try {
    const mirror = debianMirror();
    log(`base image ${name}: debootstrap bookworm from ${mirror} (about 2 minutes)`);
    execFileSync("debootstrap", ["--variant=minbase", `--include=${PACKAGES.join(",")}`, "bookworm", root, mirror], {
      stdio: ["ignore", "ignore", "inherit"],
    });
    // what the official node images have: node in /usr/local/bin, npm and npx beside it
    fs.copyFileSync(fs.realpathSync(process.execPath), path.join(root, "usr/local/bin/node"));
    fs.chmodSync(path.join(root, "usr/local/bin/node"), 0o755);
    fs.mkdirSync(path.join(root, "usr/local/lib/node_modules"), { recursive: true });
    execFileSync("cp", ["-a", npmDir(), path.join(root, "usr/local/lib/node_modules/")]);
    fs.symlinkSync("../lib/node_modules/npm/bin/npm-cli.js", path.join(root, "usr/local/bin/npm"));
    fs.symlinkSync("../lib/node_modules/npm/bin/npx-cli.js", path.join(root, "usr/local/bin/npx"));
    // apt's package lists and caches are not part of an image
    for (const dir of ["var/lib/apt/lists", "var/cache/apt/archives"]) {
      for (const entry of fs.readdirSync(path.join(root, dir))) {
        if (entry !== "partial" && entry !== "lock") fs.rmSync(path.join(root, dir, entry), { recursive: true, force: true });
      }
    }
    const tar = spawnSync("sh", ["-c", `tar -C "${root}" -c . | ${podman.join(" ")} import - ${name}`], { encoding: "utf8" });
    if (tar.status !== 0) throw new Error(`podman import failed: ${tar.stderr}`);
    log(`base image ${name}: made in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    return name;
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}
