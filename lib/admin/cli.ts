import { ServiceError } from "../errors.ts";
import { commands, type Command, type Flags } from "./commands.ts";

// `npm run admin -- <command> [--flag value ...]`: one JSON object on stdout; exit 0 on success,
// 1 with { error, message } on failure. Works whether or not the app is running: it reuses the
// embedded PostgreSQL the app started, or starts (and afterwards stops) it itself. backup and
// restore handle the embedded database themselves (commands.ts, ownDatabase).

function parseArgs(argv: string[]): { name: string | undefined; flags: Flags; stray: string[] } {
  const [name, ...rest] = argv;
  const flags: Flags = {};
  const stray: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    if (!a.startsWith("--")) {
      stray.push(a);
      continue;
    }
    const eq = a.indexOf("=");
    if (eq > 0) flags[a.slice(2, eq)] = a.slice(eq + 1);
    else if (i + 1 < rest.length && !rest[i + 1].startsWith("--")) flags[a.slice(2)] = rest[++i];
    else flags[a.slice(2)] = true;
  }
  return { name, flags, stray };
}

function fail(error: string, message: string): never {
  process.stdout.write(JSON.stringify({ error, message }) + "\n");
  process.exit(1);
}

/** A failure as the CLI prints it: a ServiceError's code and message; anything else as server_error, its stack on stderr. */
function cliFailure(e: unknown): { error: string; message: string } {
  if (e instanceof ServiceError) return { error: e.code, message: e.message };
  process.stderr.write(String((e as Error)?.stack ?? e) + "\n");
  return { error: "server_error", message: (e as Error)?.message ?? String(e) };
}

/** Runs the command and prints its result or its failure; the exit code. */
async function runAndPrint(command: Command, flags: Flags): Promise<number> {
  try {
    process.stdout.write(JSON.stringify(await command.run(flags)) + "\n");
    return 0;
  } catch (e) {
    process.stdout.write(JSON.stringify(cliFailure(e)) + "\n");
    return 1;
  }
}

async function main() {
  const { name, flags, stray } = parseArgs(process.argv.slice(2));
  const command = name ? commands[name] : undefined;
  if (!command) fail("validation", `Unknown command ${name ?? "(none)"}. Commands: ${Object.keys(commands).join(", ")}.`);
  const unknown = Object.keys(flags).filter((f) => !command.flags.includes(f));
  if (unknown.length || stray.length) {
    fail(
      "validation",
      `Unexpected argument ${[...unknown.map((f) => "--" + f), ...stray].join(", ")} for ${name}. Flags: ${command.flags.map((f) => "--" + f).join(" ")}.`,
    );
  }

  const { config } = await import("../config/index.ts");
  const { plans } = await import("../plans/index.ts");
  let cfg;
  try {
    cfg = config();
    plans();
  } catch (e) {
    fail("config", (e as Error).message);
  }
  // stdout is the command's one JSON answer: what the services log goes to stderr
  const { startLog } = await import("../log/index.ts");
  startLog({ to: "stderr" });
  if (command.ownDatabase) process.exit(await runAndPrint(command, flags));
  const { prepareDatabase } = await import("../db/start.ts");
  const database = await prepareDatabase();
  const { createRuntime } = await import("../runtime.ts");
  const runtime = await createRuntime(cfg);
  let code = 1;
  try {
    code = await runAndPrint(command, flags);
  } finally {
    // webhook hand-offs and mails the command started finish first (the app would also sweep them later)
    await runtime.close();
    await database.stop();
  }
  process.exit(code);
}

main().catch((e) => fail("server_error", (e as Error)?.message ?? String(e)));
