// prisma/schema.prisma and prisma/migrations must describe the same database. The Prisma CLI
// (through the wasm schema-engine stand-in, scripts/schema-engine/) replays the migrations on a
// shadow database and diffs the result against the schema. Fix a failure with
//   npm run db:migrate:dev -- --name <what changed>
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { startTempPostgres, type TempPostgres } from "../../scripts/with-temp-postgres.mjs";
import { root, runPrisma } from "../../scripts/schema-engine/run-prisma.mjs";

const migrations = path.join(root, "prisma/migrations");
const schema = path.join(root, "prisma/schema.prisma");

// Self-contained: its own throwaway server, on which the engine creates and drops the shadow
// database (DATABASE_URL is only that server here; nothing is written to it).
let pg: TempPostgres;
beforeAll(async () => {
  pg = await startTempPostgres();
}, 30_000);
afterAll(async () => {
  await pg?.stop();
});

// --exit-code: 0 = no difference, 2 = difference, 1 = error (e.g. a migration fails to apply).
const diff = (toSchema: string) =>
  runPrisma(["migrate", "diff", "--from-migrations", migrations, "--to-schema", toSchema, "--exit-code"], { DATABASE_URL: pg.url });

test("the migrations produce exactly prisma/schema.prisma", async () => {
  const r = await diff(schema);
  const report =
    `prisma migrate diff exited ${r.status}. Schema and migrations have drifted apart:\n` +
    `${r.stdout}${r.stderr}\nCreate a migration with: npm run db:migrate:dev -- --name <name>`;
  expect(r.status, report).toBe(0);
  // Exit 0 alone is not proof: when the engine process dies, the CLI can exit 0 silently.
  expect(r.stdout, report).toContain("No difference detected.");
}, 60_000);

test("the check fails when the schema gains a model the migrations lack", async () => {
  // A copy of the schema with one more model, in a temp dir (the real schema is never touched).
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "linkhop-drift-"));
  try {
    const drifted = path.join(dir, "schema.prisma");
    fs.writeFileSync(drifted, fs.readFileSync(schema, "utf8") + "\nmodel DriftProbe {\n  id Int @id\n}\n");
    const r = await diff(drifted);
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(2);
    expect(r.stdout).toContain("DriftProbe");
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
