// compose.yaml (with Caddy in front: deploy/Caddyfile), .env.example and the Dockerfile, read as files (the container stage builds and runs
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
  depends_on?: Record<string, { condition: string }> | string[];
  healthcheck?: { test: string[] };
  ports?: string[];
  volumes?: string[];
  profiles?: string[];
  stop_grace_period?: string;
};
const compose = parse(read("compose.yaml"), { merge: true }) as { services: Record<string, Service>; volumes: Record<string, unknown> };
const { postgres, linkhop, caddy } = compose.services;

describe("compose.yaml", () => {
  it("runs PostgreSQL from the official image with a named volume and a health check", () => {
    expect(postgres.image).toMatch(/^postgres:\d+$/);
    expect(postgres.healthcheck?.test.join(" ")).toContain("pg_isready");
    const [volume] = postgres.volumes![0].split(":");
    expect(Object.keys(compose.volumes)).toContain(volume);
  });

  it("starts Linkhop built from this Dockerfile once PostgreSQL is healthy, publishing no port (Caddy is the way in)", () => {
    expect(linkhop.build).toBe(".");
    expect(linkhop.depends_on).toEqual({ postgres: { condition: "service_healthy" } });
    expect(linkhop.ports).toBeUndefined();
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

  it("puts Caddy (official image) in front on 80 and 443 with deploy/Caddyfile, a data volume, and Linkhop told so", () => {
    expect(caddy.image).toMatch(/^caddy:2(\.\d+)*$/);
    expect(caddy.ports).toEqual(["80:80", "443:443", "443:443/udp"]);
    expect(caddy.volumes).toContain("./deploy/Caddyfile:/etc/caddy/Caddyfile:ro");
    expect(caddy.volumes).toContain("caddy-data:/data");
    expect(caddy.depends_on).toEqual(["linkhop"]);
    // the Caddyfile reads these two (its site for APP_URL's host, its upstream and ask URL)
    expect(caddy.environment?.APP_URL).toMatch(/^\$\{APP_URL:\?.+\}$/);
    expect(caddy.environment?.LINKHOP_UPSTREAM).toBe("linkhop:3000");
    const caddyfile = read("deploy/Caddyfile");
    expect(caddyfile).toMatch(/^\{\$APP_URL\} \{$/m);
    expect(caddyfile).toMatch(/^\s+ask http:\/\/\{\$LINKHOP_UPSTREAM:linkhop:3000\}\/tls\/ask$/m);
    expect(linkhop.environment).toMatchObject({ TRUST_PROXY: "1", TLS_ON_DEMAND: "1" });
  });

  it("uses only named volumes that it declares, and bind-mounts only files of this repository", () => {
    for (const service of Object.values(compose.services)) {
      for (const mount of service.volumes ?? []) {
        const source = mount.split(":")[0];
        if (source.startsWith("./")) expect(fs.existsSync(path.join(root, source)), source).toBe(true);
        else expect(Object.keys(compose.volumes)).toContain(source);
      }
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
