import { SMTPServer } from "smtp-server";
import type { AddressInfo } from "node:net";

// A real SMTP server on loopback that keeps every message. Point the app at it with
// SMTP_URL=smtp://127.0.0.1:<port> (no TLS; any user name and password are accepted).

export type ReceivedMail = {
  from: string;
  to: string[];
  subject: string;
  /** The text body, with quoted-printable and base64 undone for simple single-part messages. */
  text: string;
  /** The HTML part of a multipart message, when there is one. */
  html?: string;
  raw: string;
};

export type SmtpServer = {
  port: number;
  url: string;
  messages: ReceivedMail[];
  waitFor: (pred: (m: ReceivedMail) => boolean, timeoutMs?: number) => Promise<ReceivedMail>;
  stop: () => Promise<void>;
};

function headerValue(head: string, name: string): string {
  const unfolded = head.replace(/\r?\n[ \t]+/g, " ");
  const m = new RegExp(`^${name}:[ \\t]*(.*)$`, "im").exec(unfolded);
  return m ? decodeWords(m[1].trim()) : "";
}

// =?utf-8?Q?...?= and =?utf-8?B?...?= encoded words (subjects with non-ASCII characters).
function decodeWords(s: string): string {
  return s.replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=\s*/g, (_, _cs, enc: string, data: string) =>
    enc.toUpperCase() === "B" ? Buffer.from(data, "base64").toString("utf8") : decodeQuotedPrintable(data.replace(/_/g, " ")),
  );
}

function decodeQuotedPrintable(s: string): string {
  const bytes = s.replace(/=\r?\n/g, "").replace(/=([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
  return Buffer.from(bytes, "latin1").toString("utf8");
}

export function parseMail(raw: string, envelope: { from: string; to: string[] }): ReceivedMail {
  const split = raw.search(/\r?\n\r?\n/);
  const head = split >= 0 ? raw.slice(0, split) : raw;
  const body = split >= 0 ? raw.slice(split).replace(/^\r?\n\r?\n/, "") : "";
  const boundary = /boundary="?([^";\r\n]+)"?/i.exec(head.replace(/\r?\n[ \t]+/g, " "))?.[1];
  const decode = (partHead: string, content: string) => {
    const encoding = headerValue(partHead, "Content-Transfer-Encoding").toLowerCase();
    const out =
      encoding === "quoted-printable"
        ? decodeQuotedPrintable(content)
        : encoding === "base64"
          ? Buffer.from(content, "base64").toString("utf8")
          : content;
    return out.replace(/\r\n/g, "\n").trimEnd();
  };
  if (!boundary) return { from: envelope.from, to: envelope.to, subject: headerValue(head, "Subject"), text: decode(head, body), raw };
  // Multipart (text and HTML alternatives): split into parts, each with its own headers.
  const parts = body
    .split(`--${boundary}`)
    .slice(1)
    .map((p) => {
      const i = p.search(/\r?\n\r?\n/);
      const partHead = i >= 0 ? p.slice(0, i) : p;
      return {
        head: partHead,
        content:
          i >= 0
            ? p
                .slice(i)
                .replace(/^\r?\n\r?\n/, "")
                .replace(/\r?\n$/, "")
            : "",
      };
    });
  const plain = parts.find((p) => /content-type:\s*text\/plain/i.test(p.head));
  const html = parts.find((p) => /content-type:\s*text\/html/i.test(p.head));
  return {
    from: envelope.from,
    to: envelope.to,
    subject: headerValue(head, "Subject"),
    text: plain ? decode(plain.head, plain.content) : "",
    ...(html ? { html: decode(html.head, html.content) } : {}),
    raw,
  };
}

export async function startSmtpServer(): Promise<SmtpServer> {
  const messages: ReceivedMail[] = [];
  const waiters = new Set<() => void>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onAuth: (_auth, _session, cb) => cb(null, { user: "test" }),
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        const envelope = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
        };
        messages.push(parseMail(Buffer.concat(chunks).toString("utf8"), envelope));
        for (const w of [...waiters]) w();
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    messages,
    waitFor: (pred, timeoutMs = 15_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const m = messages.find(pred);
          if (!m) return false;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(m);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `no matching mail within ${timeoutMs} ms (${messages.length} received: ${messages.map((m) => m.subject).join("; ")})`,
            ),
          );
        }, timeoutMs);
        if (!check()) waiters.add(check);
      }),
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
