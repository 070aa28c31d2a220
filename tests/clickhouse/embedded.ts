import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { createClickHouse, type ClickHouseClient, type ClickHouseTarget } from "../../lib/analytics/clickhouse/client.ts";

// Real ClickHouse for tests and the benchmark: chdb (ClickHouse as a native library, about 540 MB)
// from this folder's own package.json, kept out of the app's install. scripts/test.mjs installs it
// on first use (`npm install --prefix tests/clickhouse`). It stands behind the app's own client as its
// connection (chdb's `chdb/connection`, the client's `connection` option), so the statements under
// test are the ones production sends over HTTP.

const HERE = path.dirname(new URL(import.meta.url).pathname);

export type EmbeddedClickHouse = {
  client: ClickHouseClient;
  /** the connection itself (tests wrap it to fail on purpose) */
  connection: NonNullable<Extract<ClickHouseTarget, { connection: unknown }>["connection"]>;
  wrap: (connection: EmbeddedClickHouse["connection"]) => ClickHouseClient;
  close: () => Promise<void>;
};

/** Why chdb cannot be loaded here, or null when it can. */
export function chdbMissing(): string | null {
  try {
    createRequire(path.join(HERE, "package.json")).resolve("chdb/connection");
    return null;
  } catch (e) {
    return `chdb is not installed (npm install --prefix tests/clickhouse): ${(e as Error).message.split("\n")[0]}`;
  }
}

/** An embedded ClickHouse in a fresh folder (one per process: chdb runs one engine per process). */
export async function startEmbeddedClickHouse(): Promise<EmbeddedClickHouse> {
  const require = createRequire(path.join(HERE, "package.json"));
  const { createChdbConnection } = require("chdb/connection") as {
    createChdbConnection: (o: { path: string }) => EmbeddedClickHouse["connection"];
  };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "linkhop-chdb-"));
  const connection = createChdbConnection({ path: dir });
  const client = createClickHouse({ connection });
  return {
    client,
    connection,
    wrap: (c) => createClickHouse({ connection: c }),
    async close() {
      await client.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
