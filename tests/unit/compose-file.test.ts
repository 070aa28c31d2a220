// compose.yaml, .env.example and the Dockerfile, read as files (the container stage builds and runs
// the image, and runs `compose config` where a compose tool is installed: tests/container/).
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

const root = path.resolve(import.meta.dirname, "../..");
const read = (file: string) => fs.readFileSync(path.join(root, file), "utf8");

type Service = {
  image?: string;
  build?: string;
  env_file?: string;
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  ports?: string[];
  volumes?: string[];
  profiles?: string[];
  stop_grace_period?: string;
};
const compose = parse(read("compose.yaml"), { merge: true }) as { services: Record<string, Service>; volumes: Record<string, unknown> };
const { postgres, linkhop } = compose.services;

describe("compose.yaml", () => {
  it("runs PostgreSQL from the official image with a named volume and a health check", () => {
    expect(postgres.image).toMatch(/^postgres:\d+$/);
    expect(postgres.healthcheck?.test.join(" ")).toContain("pg_isready");
    const [volume] = postgres.volumes![0].split(":");
    expect(Object.keys(compose.volumes)).toContain(volume);
  });

  it("starts Linkhop built from this Dockerfile once PostgreSQL is healthy, on port 3000", () => {
    expect(linkhop.build).toBe(".");
    expect(linkhop.depends_on).toEqual({ postgres: { condition: "service_healthy" } });
    expect(linkhop.ports).toEqual(["3000:3000"]);
    expect(linkhop.environment?.DATABASE_URL).toMatch(/^postgresql:\/\/linkhop:\$\{POSTGRES_PASSWORD[^}]*\}@postgres:5432\/linkhop$/);
    expect(linkhop.stop_grace_period).toBe("30s");
  });

  it("takes AUTH_SECRET and APP_URL from .env, refusing to start without them", () => {
    expect(linkhop.env_file).toBe(".env");
    expect(linkhop.environment?.AUTH_SECRET).toMatch(/^\$\{AUTH_SECRET:\?.+\}$/);
    expect(linkhop.environment?.APP_URL).toMatch(/^\$\{APP_URL:\?.+\}$/);
  });

  it("names in .env.example every variable compose.yaml reads", () => {
    const used = new Set([...read("compose.yaml").matchAll(/\$\{([A-Z_]+)/g)].map((m) => m[1]));
    const documented = new Set([...read(".env.example").matchAll(/^([A-Z_]+)=/gm)].map((m) => m[1]));
    expect([...used].sort()).toEqual([...documented].sort());
  });

  it("has a second Linkhop process on the same database only under the replicas profile", () => {
    const replica = compose.services["linkhop-2"];
    expect(replica.profiles).toEqual(["replicas"]);
    expect(replica.environment).toEqual(linkhop.environment);
    expect(replica.ports).toEqual(["3001:3000"]);
  });

  it("uses only named volumes that it declares", () => {
    for (const service of Object.values(compose.services)) {
      for (const mount of service.volumes ?? []) expect(Object.keys(compose.volumes)).toContain(mount.split(":")[0]);
    }
  });
});

describe("Dockerfile", () => {
  const dockerfile = read("Dockerfile");

  it("takes the base image as an argument, node:22-bookworm-slim by default, in every stage", () => {
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:22-bookworm-slim$/m);
    const froms = [...dockerfile.matchAll(/^FROM (\S+) AS (\S+)$/gm)].map((m) => [m[2], m[1]]);
    expect(froms).toEqual([
      ["deps", "${NODE_IMAGE}"],
      ["build", "deps"],
      ["runtime", "${NODE_IMAGE}"],
    ]);
  });

  it("runs the compiled server as a non-root user under tini, with /data as a volume", () => {
    const runtime = dockerfile.slice(dockerfile.indexOf("AS runtime"));
    expect(runtime).toMatch(/^USER linkhop$/m);
    expect(runtime).toMatch(/^VOLUME \["\/data"\]$/m);
    expect(runtime).toMatch(/LINKHOP_DATA_DIR=\/data/);
    expect(runtime).toMatch(/^EXPOSE 3000$/m);
    expect(runtime).toMatch(/^ENTRYPOINT \["tini", "--"\]$/m);
    expect(runtime).toMatch(/^CMD \["node", "--enable-source-maps", "dist\/server.js"\]$/m);
    expect(runtime).toMatch(/HEALTHCHECK[^]*\/healthz/);
  });
});
