import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { TABLES } from "../../lib/db/tables.ts";

// Every table has one owning area that alone writes it (lib/db/tables.ts). This reads the source:
// Prisma writes (`.link.update(`, `tx.delivery.createMany(`) and SQL text that writes a table
// (`insert into "Link"`, `update "Delivery"`, `delete from analytics.click_event`, `copy ...`), in
// every file of lib/, app/, components/, inngest/ and server.ts, and holds each to the map.

const root = path.resolve(import.meta.dirname, "../..");
const schema = fs.readFileSync(path.join(root, "prisma/schema.prisma"), "utf8");
const models = [...schema.matchAll(/^model (\w+)/gm)].map((m) => m[1]!);
const accessorOf = new Map(models.map((m) => [m[0]!.toLowerCase() + m.slice(1), m]));
const PRISMA_WRITE =
  /\.(\w+)\s*\.\s*(?:create|createMany|createManyAndReturn|update|updateMany|updateManyAndReturn|upsert|delete|deleteMany)\s*\(/g;
const SQL_WRITE = /\b(?:insert\s+into|update|delete\s+from|truncate(?:\s+table)?|copy)\s+(?:(\w+)\.(\w+)\b|"(\w+)")/gi;

function* sources(dir: string): Generator<string> {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== "generated" && e.name !== "node_modules") yield* sources(p);
    } else if (/\.(ts|tsx|mjs)$/.test(e.name)) yield p;
  }
}

/** The tables a source writes. */
function tablesWritten(text: string): Set<string> {
  const tables = new Set<string>();
  for (const m of text.matchAll(PRISMA_WRITE)) {
    const model = accessorOf.get(m[1]!);
    if (model) tables.add(model);
  }
  for (const m of text.matchAll(SQL_WRITE)) tables.add(m[1] ? `${m[1]}.${m[2]}` : m[3]!);
  return tables;
}

/** The area of a file: lib/<area>/..., lib/<area>.ts, else its top folder (app, components, inngest) or file. */
function areaOf(file: string): string {
  const parts = file.split("/");
  if (parts[0] === "lib") return parts.length > 2 ? parts[1]! : parts[1]!.replace(/\.ts$/, "");
  return parts[0]!;
}

const writes: { file: string; table: string }[] = [];
for (const top of ["lib", "app", "components", "inngest"])
  for (const file of sources(path.join(root, top))) {
    const rel = path.relative(root, file).split(path.sep).join("/");
    for (const table of tablesWritten(fs.readFileSync(file, "utf8"))) writes.push({ file: rel, table });
  }
for (const table of tablesWritten(fs.readFileSync(path.join(root, "server.ts"), "utf8"))) writes.push({ file: "server.ts", table });

describe("table owners", () => {
  it("the scanner sees both kinds of write", () => {
    expect([...tablesWritten("await tx.link.updateMany({ where }); db().apiKey.create({})")].sort()).toEqual(["ApiKey", "Link"]);
    expect(
      [...tablesWritten('insert into "Link" (a) values (1); UPDATE "Delivery" set x = 1; delete from analytics.click_event')].sort(),
    ).toEqual(["Delivery", "Link", "analytics.click_event"]);
    expect([...tablesWritten('select * from "Link"; await db().link.findMany({})')]).toEqual([]);
  });

  it("names every table of the schema and of the analytics migrations", () => {
    const analytics = new Set<string>();
    for (const dir of fs.readdirSync(path.join(root, "prisma/migrations"))) {
      const file = path.join(root, "prisma/migrations", dir, "migration.sql");
      if (!fs.existsSync(file)) continue;
      for (const m of fs.readFileSync(file, "utf8").matchAll(/create\s+table\s+(?:if\s+not\s+exists\s+)?analytics\.(\w+)/gi))
        analytics.add(`analytics.${m[1]}`);
    }
    const dropped = new Set<string>();
    for (const dir of fs.readdirSync(path.join(root, "prisma/migrations"))) {
      const file = path.join(root, "prisma/migrations", dir, "migration.sql");
      if (!fs.existsSync(file)) continue;
      for (const m of fs.readFileSync(file, "utf8").matchAll(/drop\s+table\s+(?:if\s+exists\s+)?analytics\.(\w+)/gi))
        dropped.add(`analytics.${m[1]}`);
    }
    const expected = [...models, ...[...analytics].filter((t) => !dropped.has(t)), "_prisma_migrations"].sort();
    expect(Object.keys(TABLES).sort()).toEqual(expected);
  });

  it("every write is by the table's owner or a listed exception", () => {
    const outside = writes
      .filter(({ file, table }) => {
        const entry = TABLES[table];
        return !entry || (areaOf(file) !== entry.owner && !(entry.others && file in entry.others));
      })
      .map(({ file, table }) => `${file} writes ${table}`);
    expect(outside).toEqual([]);
  });

  it("every listed exception still writes its table (no stale exception)", () => {
    const stale = Object.entries(TABLES).flatMap(([table, entry]) =>
      Object.keys(entry.others ?? {})
        .filter((file) => !writes.some((w) => w.file === file && w.table === table))
        .map((file) => `${file} no longer writes ${table}`),
    );
    expect(stale).toEqual([]);
  });
});
