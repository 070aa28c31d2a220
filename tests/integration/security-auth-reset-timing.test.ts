import net from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import { startApp, type RunningApp } from "../support/app.ts";
import { startSmtpServer, type SmtpServer } from "../support/smtp.ts";
import { statementRelay, type StatementRelay } from "../support/pg-statements.ts";
import { formsOf } from "./security-auth-forms.ts";

// "Forgot password?" takes the same time for an address no account has as for one an account has
// (lib/auth/password-reset.ts), shown by the work each request does rather than by a stopwatch,
// which two loaded cores make too noisy to tell a few milliseconds apart:
// - the database: the same statements, in the same order, read on the wire between the app and
//   PostgreSQL (tests/support/pg-statements.ts): both limits and the one statement that issues a
//   link or does nothing; no statement that only a known address runs;
// - the mail: the answer to a known address does not wait for it. The SMTP server is held back
//   (connections accepted, nothing passed on) until the answer has arrived; only then does the
//   mail go through, so it was sent after the answer, from the background.
// What is left is the same code in the app process for both (one random token, its hash).
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let pg: StatementRelay;
let smtp: SmtpServer;
let held: HeldRelay;
let app: RunningApp;
let users: typeof import("../../lib/auth/users.ts");

beforeAll(async () => {
  database = await createTestDatabase();
  await useDatabaseInProcess(database.url);
  users = await import("../../lib/auth/users.ts");
  smtp = await startSmtpServer();
  held = await heldRelay(smtp.port);
  pg = await statementRelay(new URL(database.url));
  // TRUST_PROXY=1: each request picks its client address (X-Forwarded-For), so no limit is reached
  app = await startApp(pg.url, { SMTP_URL: `smtp://127.0.0.1:${held.port}`, TRUST_PROXY: "1" });
}, 120_000);

afterAll(async () => {
  await app?.stop();
  await held?.close();
  await pg?.close();
  await smtp?.stop();
  const { disconnectDb } = await import("../../lib/db/client.ts");
  await disconnectDb();
  await database?.drop();
});

let n = 0;
const SENT = "If a Linkhop account uses that address, we have mailed it a link to set a new password.";
/** Generous: the answer takes well under a second; one that waited for the held mail would come after nodemailer's 30 s greeting timeout. */
const ANSWER_DEADLINE_MS = 20_000;

async function knownAddress() {
  const email = `timing-${++n}@example.test`;
  await users.signUp({ email, password: "password1" });
  return email;
}

type Asked = { html: string; statements: string[] };

/** The text of a statement with its spacing folded (the values are parameters, not in the text). */
const fold = (sql: string) => sql.replace(/\s+/g, " ").trim();
/** Which statements (by index in the relay's list) ran while a request was answered. */
const windows: [from: number, to: number][] = [];
/** The statements seen while no request was being answered: the background jobs'. */
const background = () =>
  new Set(
    pg
      .statements()
      .filter((_, i) => !windows.some(([from, to]) => i >= from && i < to))
      .map(fold),
  );

/** Posts the "Forgot password?" form (loaded first) from a client address of its own; resolves with the page, or rejects past the deadline. */
async function askForLink(email: string): Promise<Asked> {
  const c = ++n;
  const headers = { "x-forwarded-for": `198.51.${(c >> 8) & 255}.${c & 255}` };
  const page = await (await fetch(`${app.url}/forgot-password`, { headers })).text();
  const form = formsOf(page).find((f) => f.fields.some(([name]) => name.startsWith("$ACTION")));
  if (!form) throw new Error(`no action form on /forgot-password: ${page.slice(0, 300)}`);
  const body = new FormData();
  for (const [name, value] of form.fields) body.append(name, value);
  body.append("email", email);
  const from = pg.statements().length;
  const answer = fetch(`${app.url}/forgot-password`, { method: "POST", body, headers, redirect: "manual" }).then((r) => r.text());
  const html = await Promise.race([
    answer,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`no answer for ${email} in ${ANSWER_DEADLINE_MS} ms`)), ANSWER_DEADLINE_MS).unref(),
    ),
  ]);
  const to = pg.statements().length;
  windows.push([from, to]);
  return { html, statements: pg.statements().slice(from, to).map(fold) };
}

/** The statements of one list that the other does not have as often. */
function unmatched(a: string[], b: string[]): string[] {
  const left = [...b];
  return a.filter((s) => {
    const i = left.indexOf(s);
    if (i === -1) return true;
    left.splice(i, 1);
    return false;
  });
}

describe("asking for a reset link for an unknown and a known address", () => {
  test("runs the same database statements in the same order; the known address's mail is sent after the answer", async () => {
    held.hold();
    // The app's background jobs query the database too (the webhook scheduler every 500 ms; the
    // analytics maintenance once, a second after the start), and one may fall into a request's
    // statements. A statement in one request's list only is taken for the background's once it
    // has also run while no request was answered (within a few seconds, for the scheduler's); a
    // one-off in a request is tried again with a new pair. A statement only one kind of address
    // runs never runs outside a request: every pair shows it, and the lists differ below.
    const known: string[] = [];
    let pair: { unknown: Asked; known: Asked } | undefined;
    for (let attempt = 0; attempt < 3; attempt++) {
      known.push(await knownAddress());
      pair = { unknown: await askForLink(`nobody-${++n}@example.test`), known: await askForLink(known.at(-1)!) };
      expect(pair.unknown.html).toContain(SENT);
      expect(pair.known.html).toContain(SENT);
      const odd = [
        ...unmatched(pair.known.statements, pair.unknown.statements),
        ...unmatched(pair.unknown.statements, pair.known.statements),
      ];
      const deadline = Date.now() + 5_000;
      while (odd.some((s) => !background().has(s)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      if (odd.every((s) => background().has(s))) break;
    }
    const requests = (list: string[]) => list.filter((s) => !background().has(s));
    expect(requests(pair!.known.statements)).toEqual(requests(pair!.unknown.statements));
    // the limits (client, then address) and the one statement that issues a link or does nothing
    expect(requests(pair!.known.statements).filter((s) => s.startsWith('insert into "AuthThrottle"'))).toHaveLength(2);
    expect(requests(pair!.known.statements).filter((s) => s.includes('insert into "PasswordReset"'))).toHaveLength(1);

    // Every answer came while the SMTP server could not be reached; released, the mails to the
    // known addresses arrive (they were sent after the answers), and none to the unknown ones.
    expect(smtp.messages).toHaveLength(0);
    held.release();
    for (const email of known) await smtp.waitFor((m) => m.to.includes(email) && m.subject === "Reset your Linkhop password");
    expect(smtp.messages.filter((m) => m.to.some((to) => to.startsWith("nobody-")))).toHaveLength(0);
  });
});

type HeldRelay = { port: number; hold(): void; release(): void; close(): Promise<void> };

/** A relay on loopback to `port` that, while held, accepts connections but passes nothing either way. */
async function heldRelay(port: number): Promise<HeldRelay> {
  let waiting: net.Socket[] | null = null;
  const sockets = new Set<net.Socket>();
  const connect = (client: net.Socket) => {
    const upstream = net.connect(port, "127.0.0.1");
    sockets.add(upstream);
    upstream.on("error", () => client.destroy());
    client.pipe(upstream).pipe(client);
  };
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on("error", () => {});
    client.on("close", () => sockets.delete(client));
    if (waiting) {
      client.pause();
      waiting.push(client);
    } else connect(client);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    port: (server.address() as net.AddressInfo).port,
    hold: () => void (waiting ??= []),
    release() {
      const clients = waiting ?? [];
      waiting = null;
      for (const c of clients) if (!c.destroyed) connect(c);
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
