import net from "node:net";

// A relay on loopback between an app and PostgreSQL that notes the text of every statement the
// app runs, in the order they reach the database: each execution of the extended protocol (a Bind,
// naming the statement a Parse gave its text) and each simple Query. A test compares the database
// work of two requests this way, on the wire, without touching the app. Plain connections only
// (an SSLRequest is passed on, but an encrypted stream cannot be read).

export type StatementRelay = {
  /** the database URL with its host and port replaced by the relay's */
  url: string;
  /** the statements noted so far, oldest first */
  statements: () => string[];
  close(): Promise<void>;
};

const SSL_REQUEST = 80877103;
const GSS_REQUEST = 80877104;

export async function statementRelay(target: URL): Promise<StatementRelay> {
  const noted: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => s.destroy());
    }
    client.on(
      "data",
      reader((text) => noted.push(text)),
    );
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = new URL(target);
  url.hostname = "127.0.0.1";
  url.port = String((server.address() as net.AddressInfo).port);
  return {
    url: url.toString(),
    statements: () => [...noted],
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

/** A reader of one connection's frontend messages that calls `note` for each statement run. */
function reader(note: (text: string) => void): (chunk: Buffer) => void {
  let pending = Buffer.alloc(0);
  let started = false; // past the startup message, whose frame has no type byte
  const prepared = new Map<string, string>();
  return (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    for (;;) {
      const head = started ? 1 : 0;
      if (pending.length < head + 4) return;
      const length = pending.readInt32BE(head);
      if (pending.length < head + length) return;
      const type = started ? String.fromCharCode(pending[0]) : "";
      const body = pending.subarray(head + 4, head + length);
      pending = pending.subarray(head + length);
      if (!started) {
        const code = body.readInt32BE(0);
        started = code !== SSL_REQUEST && code !== GSS_REQUEST;
        continue;
      }
      const strings = cStrings(body);
      if (type === "Q") note(strings[0]);
      else if (type === "P") prepared.set(strings[0], strings[1]);
      else if (type === "B") note(prepared.get(strings[1]) ?? `(unknown statement ${strings[1]})`);
    }
  };
}

/** The first two NUL-terminated strings of a message body. */
function cStrings(body: Buffer): string[] {
  const first = body.indexOf(0);
  const second = body.indexOf(0, first + 1);
  return [body.toString("utf8", 0, first), body.toString("utf8", first + 1, second === -1 ? body.length : second)];
}
