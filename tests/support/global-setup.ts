import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { startEmbeddedPostgres } from "../../lib/db/embedded.ts";
import { applyMigrations } from "../../lib/db/migrate.ts";
import { createTestCa } from "./https-receiver.ts";

// One real PostgreSQL for the integration run (TEST_DATABASE_URL to use your own server instead).
// Migrations are applied once to a template database; each test file clones it (fast, isolated).
export default async function setup(project: TestProject) {
  let adminUrl = process.env.TEST_DATABASE_URL;
  let stop = async () => {};
  let dir: string | undefined;
  if (!adminUrl) {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "linkhop-test-"));
    const pg = await startEmbeddedPostgres(dir, "postgres");
    adminUrl = pg.url;
    stop = pg.stop;
  }
  const template = new URL(adminUrl);
  template.pathname = "/linkhop_template";
  const pg = await import("pg");
  const admin = new pg.default.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query("drop database if exists linkhop_template with (force)");
  await admin.query("create database linkhop_template");
  await admin.end();
  await applyMigrations(template.toString());
  project.provide("adminDatabaseUrl", adminUrl);
  // One throwaway certificate authority for the run, trusted from the start by every test worker
  // and every app process they start (NODE_EXTRA_CA_CERTS is read only when a process starts, and
  // both inherit this environment): webhook receivers are HTTPS, as production sends, and the
  // attempts a test makes in-process verify them like the app does (tests/integration/webhooks-helpers.ts).
  const ca = createTestCa();
  process.env.NODE_EXTRA_CA_CERTS = ca.certPath;
  project.provide("testCaDir", ca.dir);
  return async () => {
    ca.cleanup();
    await stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  };
}

declare module "vitest" {
  export interface ProvidedContext {
    adminDatabaseUrl: string;
    /** The run's test CA (createTestCa(dir) issues receiver certificates from it). */
    testCaDir: string;
  }
}
