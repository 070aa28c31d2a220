// Stand-in for Prisma's native `schema-engine` binary, which the Prisma 7 CLI downloads at run
// time (impossible offline). The CLI finds this program through PRISMA_SCHEMA_ENGINE_BINARY (see
// the `schema-engine` wrapper beside this file) and talks to it as it would to the binary:
//
//   schema-engine --version                            print the version, exit
//   schema-engine --datasource JSON cli SUBCOMMAND     can-connect-to-database | create-database |
//                                                      drop-database, then exit (0 = ok)
//   schema-engine [--datamodels FILE]... [--datasource JSON]
//                                                      JSON-RPC 2.0, one message per line:
//                                                      requests on stdin, responses on stdout,
//                                                      JSON log lines on stderr
//
// Every RPC method is delegated to Prisma's own WebAssembly build of the same engine
// (@prisma/schema-engine-wasm) running over the pg driver adapter (@prisma/adapter-pg).
// The places where the two differ are marked "TRAP" below.
import fs from "node:fs";
import crypto from "node:crypto";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
// A dependency of @prisma/adapter-pg (same version): wraps an adapter in the Result-returning
// shape the Rust side expects.
import { bindMigrationAwareSqlAdapterFactory, ColumnTypeEnum } from "@prisma/driver-adapter-utils";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const wasmDir = path.join(root, "node_modules/@prisma/schema-engine-wasm");

// ---- arguments -----------------------------------------------------------------------------
const argv = process.argv.slice(2);
const datamodelPaths = [];
let datasource = {}; // { url, shadowDatabaseUrl? } from prisma.config.ts
let cliCommand = null;
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === "--datamodels") datamodelPaths.push(argv[++i]);
  else if (a === "--datasource") datasource = JSON.parse(argv[++i]);
  else if (a === "--enabled-preview-features" || a === "--extension-types")
    i++; // not used by wasm
  else if (a === "cli") cliCommand = argv[++i];
  else if (a === "--version" || a === "-V") cliCommand = "--version";
}

// ---- the wasm engine -------------------------------------------------------------------------
// A Rust panic inside the wasm engine stores its message here (the glue calls
// global.PRISMA_WASM_PANIC_REGISTRY.set_message) and then aborts the call with a RuntimeError.
let lastPanic = null;
globalThis.PRISMA_WASM_PANIC_REGISTRY = { set_message: (message) => (lastPanic = message) };

// The package's entry does `import * from "./x.wasm"`, which Node 20 cannot load without a flag:
// instantiate the module by hand with the JS glue as its import object.
async function loadWasm() {
  const glue = await import(path.join(wasmDir, "schema_engine_bg.js"));
  const bytes = fs.readFileSync(path.join(wasmDir, "schema_engine_bg.wasm"));
  const { instance } = await WebAssembly.instantiate(bytes, { "./schema_engine_bg.js": glue });
  glue.__wbg_set_wasm(instance.exports);
  instance.exports.__wbindgen_start();
  return glue;
}

// Two fixes to @prisma/adapter-pg, applied once to its classes' prototypes (shared by the main
// adapter, its transactions and the shadow-database adapters).
//
// TRAP: on PostgreSQL 18 the schema describer reads "char" columns (OID 18, e.g. contype of
// pg_constraint, which now lists NOT NULL constraints). adapter-pg has no column type for "char"
// and throws, so describing any database fails ("Column type 'char' could not be deserialized").
// Report them as the adapter's character type instead: the performIO patch hides the OID from
// adapter-pg (as text) and notes the columns on the query object (one per call, so concurrent
// queries cannot mix), and queryRaw then fixes their type.
//
// TRAP: adapter-pg's executeScript (used to run migration scripts) splits the script on ";",
// which breaks any statement with a ";" inside, such as a plpgsql function body ("unterminated
// dollar-quoted string"). Send the script whole instead: PostgreSQL's simple query protocol
// runs several statements in one go, as the native engine does.
const PG_CHAR = 18;
const PG_TEXT = 25;
let patched = false;
function patchAdapterPg(adapter) {
  if (patched) return;
  patched = true;
  const adapterProto = Object.getPrototypeOf(adapter); // PrismaPgAdapter
  const queryableProto = Object.getPrototypeOf(adapterProto); // PgQueryable
  const has = (proto, ...names) => names.every((n) => Object.hasOwn(proto, n));
  if (!has(queryableProto, "performIO", "queryRaw", "onError") || !has(adapterProto, "executeScript")) {
    throw new Error("@prisma/adapter-pg changed shape: update patchAdapterPg in engine.mjs");
  }
  const { performIO, queryRaw } = queryableProto;
  queryableProto.performIO = async function (query) {
    const result = await performIO.call(this, query);
    result.fields?.forEach((field, i) => {
      if (field.dataTypeID !== PG_CHAR) return;
      field.dataTypeID = PG_TEXT;
      (query.charColumns ??= []).push(i);
    });
    return result;
  };
  queryableProto.queryRaw = async function (query) {
    const result = await queryRaw.call(this, query);
    for (const i of query.charColumns ?? []) result.columnTypes[i] = ColumnTypeEnum.Character;
    return result;
  };
  adapterProto.executeScript = async function (script) {
    try {
      await this.client.query(script); // no parameters: simple protocol, many statements allowed
    } catch (e) {
      this.onError(e); // rethrows as the adapter's own error type
    }
  };
}

// Adapter factory for the wasm engine.
//
// The shadow database is a fresh database created for each use, on the server of
// shadowDatabaseUrl if configured, else of the main URL, and dropped afterwards: an existing
// database is never wiped. TRAP: adapter-pg's own connectToShadowDb cannot be used: it opens
// the new database with { connectionString, database }, where pg lets the connection string
// win, so the migrations land in the main database (seen: the "shadow" tables appeared there);
// it would also drop the new database while its own pool is still connected to it.
function adapterFactory() {
  const main = new PrismaPg({ connectionString: datasource.url });
  const factory = {
    provider: main.provider,
    adapterName: main.adapterName,
    async connect() {
      const adapter = await main.connect();
      patchAdapterPg(adapter);
      return adapter;
    },
    async connectToShadowDb() {
      const server = datasource.shadowDatabaseUrl ?? datasource.url;
      const name = `prisma_migrate_shadow_db_${crypto.randomUUID()}`;
      await withClient(server, (c) => c.query(`CREATE DATABASE "${name}"`));
      const url = new URL(server);
      url.pathname = `/${name}`;
      const adapter = await new PrismaPg({ connectionString: url.toString() }).connect();
      patchAdapterPg(adapter);
      const dispose = adapter.dispose.bind(adapter);
      adapter.dispose = async () => {
        await dispose(); // closes the pool first
        await withClient(server, (c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
      };
      return adapter;
    },
  };
  return bindMigrationAwareSqlAdapterFactory(factory);
}

function logLine(line) {
  // The CLI reads stderr line by line as JSON ({level, fields: {message}}); keep one per line.
  process.stderr.write(String(line).replace(/\n/g, " ") + "\n");
}

async function newEngine(wasm) {
  // No --datamodels (migrate diff): pass undefined; an empty list panics the schema parser.
  const datamodels = datamodelPaths.length ? datamodelPaths.map((p) => [p, fs.readFileSync(p, "utf8")]) : undefined;
  return wasm.SchemaEngine.new({ datamodels }, logLine, adapterFactory());
}

// ---- `cli` subcommands -----------------------------------------------------------------------
// The CLI runs these as one-shot processes and only looks at the exit code and, on failure, at
// stderr. TRAP: it drops the first stderr line and JSON-parses every other line, so print a
// plain first line, then one JSON error line with no trailing newline.
function cliFail(errorCode, message) {
  const error = { level: "ERROR", target: "schema_engine::logger", fields: { message, error_code: errorCode } };
  process.stderr.write("schema-engine (wasm stand-in) failed\n" + JSON.stringify(error));
  process.exit(1);
}

function databaseOf(url) {
  const u = new URL(url);
  const name = decodeURIComponent(u.pathname.slice(1)) || "postgres";
  u.pathname = "/postgres"; // a database that always exists, to create or drop the target from
  return { name, adminUrl: u.toString(), where: `${u.hostname}:${u.port || 5432}` };
}

// Map connection failures to the error codes the native engine uses (the CLI acts on P1003).
function connectionError(e, url) {
  const { name, where } = databaseOf(url);
  if (e.code === "3D000") return ["P1003", `Database \`${name}\` does not exist on the database server at \`${where}\`.`];
  if (e.code === "28P01" || e.code === "28000") return ["P1000", `Authentication failed against database server at \`${where}\`.`];
  return ["P1001", `Can't reach database server at \`${where}\`: ${e.message}`];
}

async function withClient(url, fn) {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
  } catch (e) {
    throw Object.assign(new Error("connect"), { codeAndMessage: connectionError(e, url) });
  }
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => {});
  }
}

async function createDatabase(url) {
  const { name, adminUrl } = databaseOf(url);
  await withClient(adminUrl, (c) => c.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`));
  return name;
}

async function runCli(command) {
  const url = datasource.url;
  try {
    if (command === "can-connect-to-database") await withClient(url, () => {});
    else if (command === "create-database") await createDatabase(url);
    else if (command === "drop-database") {
      const { name, adminUrl } = databaseOf(url);
      await withClient(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS "${name.replace(/"/g, '""')}" WITH (FORCE)`));
    } else cliFail("P1000", `Unknown cli subcommand: ${command}`);
    process.exit(0);
  } catch (e) {
    if (e.codeAndMessage) cliFail(...e.codeAndMessage);
    cliFail(e.code ?? "P1000", e.message);
  }
}

// UTC YYYYMMDDHHMMSS, the prefix of Prisma's migration folder names.
const timestamp = () => new Date().toISOString().replace(/[-:T]/g, "").slice(0, 14);

// ---- JSON-RPC server -------------------------------------------------------------------------
function send(message) {
  process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n");
}

// Our own requests to the CLI (only `print`) and the callbacks waiting for their answers.
let nextOwnId = 1_000_000;
const waitingForCli = new Map();
function requestCli(method, params) {
  const id = nextOwnId++;
  return new Promise((resolve) => {
    waitingForCli.set(id, resolve);
    send({ id, method, params });
  });
}

// The wasm engine throws a JS error whose message is the JSON of the native engine's
// user-facing error ({ is_panic, message, error_code?, meta? }), or a plain message.
function toRpcError(e) {
  if (lastPanic !== null) {
    const message = lastPanic;
    lastPanic = null;
    return { code: 4466, message, data: { is_panic: true, message, error: { message } } };
  }
  let data;
  try {
    data = JSON.parse(e?.message ?? String(e));
  } catch {
    data = { is_panic: false, message: e?.message ?? String(e) };
  }
  if (typeof data !== "object" || data === null) data = { is_panic: false, message: String(data) };
  return { code: 4466, message: "An error happened. Check the data field for details.", data };
}

async function runRpc() {
  const wasm = await loadWasm();
  // Created on the first request that needs it: unlike the native engine, the wasm engine
  // connects to the database when it is created, and a failure must become an RPC error the
  // CLI can show, not a crash.
  let engine = null;

  async function call(method, params) {
    if (method !== "createDatabase") engine ??= await newEngine(wasm);
    switch (method) {
      case "getDatabaseVersion":
        return engine.version(params);
      case "createDatabase": {
        const url = params?.datasource?.url ?? datasource.url; // tag "ConnectionString" or "Schema"
        return { databaseName: await createDatabase(url) };
      }
      case "diff": {
        // TRAP: the wasm engine returns the diff as {stdout}; the native engine sends it to the
        // CLI in a `print` request (the CLI writes it to stdout or to --output) and returns only
        // the exit code.
        const { exitCode, stdout } = await engine.diff(params);
        if (stdout) await requestCli("print", { content: stdout });
        return { exitCode };
      }
      // TRAP: in this wasm build, createMigration and evaluateDataLoss (used by `migrate dev`)
      // fail with "PostgreSQL shadow DB must be provided through an external factory": unlike
      // diff and devDiagnostic, they do not hand the adapter's shadow-database factory on.
      // Both are rebuilt on diff (migrations -> schema), which is what they compute.
      case "createMigration": {
        const { exitCode, stdout } = await diffMigrationsToSchema(params);
        const empty = exitCode !== 2;
        const name = params.migrationName ? `${timestamp()}_${params.migrationName}` : timestamp();
        return {
          connectorType: "postgresql",
          generatedMigrationName: name,
          extension: "sql",
          // null = nothing to create; --create-only (draft) still gets an (empty) migration
          migrationScript: empty ? (params.draft ? "-- This is an empty migration." : null) : stdout,
        };
      }
      case "evaluateDataLoss": {
        // Limitation: no data-loss warnings (the native engine checks the dev database's rows).
        const { exitCode, stdout } = await diffMigrationsToSchema(params);
        const steps = exitCode === 2 ? (stdout.match(/^-- [A-Z]\w*$/gm) ?? [""]).length : 0;
        return { migrationSteps: steps, warnings: [], unexecutableSteps: [] };
      }
      default:
        if (typeof engine[method] !== "function" || method === "free" || method.startsWith("_")) {
          throw Object.assign(new Error(`Method not supported by the wasm engine: ${method}`), { rpcCode: -32601 });
        }
        return engine[method](params);
    }
  }

  const diffMigrationsToSchema = ({ migrationsList, schema, filters }) =>
    engine.diff({
      from: { tag: "migrations", ...migrationsList },
      to: { tag: "schemaDatamodel", ...schema },
      script: true,
      exitCode: true, // 2 = there is a difference
      filters,
    });

  // Handle requests one at a time, in order, as the CLI sends them.
  let queue = Promise.resolve();
  let current = null; // id of the request being handled

  // A panic often surfaces inside the engine's own async tasks, not as a rejection of the call
  // we await. The engine is unusable afterwards: answer the request with the panic (the CLI
  // shows it) and exit 101, the native engine's exit code for a panic.
  const onCrash = (e) => {
    const error = toRpcError(e);
    error.data.is_panic = true;
    logLine(JSON.stringify({ level: "ERROR", fields: { message: error.data.message } }));
    if (current !== null) send({ id: current, error });
    process.exitCode = 101;
    process.stdout.write("", () => process.exit(101));
  };
  process.on("uncaughtException", onCrash);
  process.on("unhandledRejection", onCrash);
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  lines.on("line", (line) => {
    if (!line.trim()) return;
    const msg = JSON.parse(line);
    if (msg.method === undefined) {
      // A response to one of our own requests.
      waitingForCli.get(msg.id)?.(msg.result);
      waitingForCli.delete(msg.id);
      return;
    }
    queue = queue.then(async () => {
      current = msg.id;
      try {
        send({ id: msg.id, result: (await call(msg.method, msg.params)) ?? {} });
      } catch (e) {
        if (e?.rpcCode) send({ id: msg.id, error: { code: e.rpcCode, message: e.message } });
        else if (e?.codeAndMessage) {
          const [error_code, message] = e.codeAndMessage;
          send({ id: msg.id, error: { code: 4466, message, data: { is_panic: false, message, error_code } } });
        } else send({ id: msg.id, error: toRpcError(e) });
      }
    });
  });
  // The CLI closes stdin to stop us; the pg pools would otherwise keep the process alive.
  lines.on("close", () => queue.then(() => process.exit(0)));
}

if (cliCommand === "--version") {
  const wasm = await loadWasm();
  process.stdout.write(`schema-engine-cli ${wasm.version()} (wasm stand-in)\n`);
} else if (cliCommand) {
  await runCli(cliCommand);
} else {
  await runRpc();
}
