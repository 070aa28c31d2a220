import fs from "node:fs";
import path from "node:path";
import type { Metadata } from "next";
import Link from "next/link";
import { config } from "@/lib/config";
import { SELECTABLE_EVENT_TYPES } from "@/lib/events";
import { userAgent } from "@/lib/webhooks/rules";

// The help page named in every delivery's User-Agent: what a receiver gets and how to check it.
export const metadata: Metadata = { title: "Webhooks for receivers" };
export const dynamic = "force-dynamic";

let verifySource: string | undefined;
function verifyCode(): string {
  // The very file the app signs with (lib/webhooks/verify.ts); it imports nothing from the app.
  verifySource ??= (() => {
    try {
      return fs.readFileSync(path.join(process.cwd(), "lib/webhooks/verify.ts"), "utf8");
    } catch {
      return "// See lib/webhooks/verify.ts in the Linkhop source.";
    }
  })();
  return verifySource;
}

const EXAMPLE = `// receiver.mjs: node receiver.mjs (Node 20+; verify-webhook.ts is the file below,
// or its JavaScript version without the type annotations)
import http from "node:http";
import { verifyWebhookSignature } from "./verify-webhook.ts";

const secret = process.env.LINKHOP_WEBHOOK_SECRET; // whsec_... from the Developers page
const handled = new Set(); // keep delivery ids in your database in production

http
  .createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks); // the exact bytes; never re-encode before checking
      const signature = req.headers["service-signature"];
      if (!verifyWebhookSignature(raw, signature, secret, { toleranceSeconds: 300 })) {
        res.writeHead(400).end("bad signature");
        return;
      }
      res.writeHead(200).end("ok"); // answer within 10 seconds; do slow work afterwards

      const deliveryId = req.headers["service-delivery"]; // same on every retry and resend
      if (handled.has(deliveryId)) return;
      handled.add(deliveryId);
      const event = JSON.parse(raw.toString("utf8"));
      switch (event.type) {
        case "link.created":
          console.log("new link", event.data.link.short);
          break;
        default:
          break; // ignore types you do not handle: new ones are added over time
      }
    });
  })
  .listen(8080);`;

const ENVELOPE = `{
  "id": "evt_3f0c9a1e5b7d4c2a8e6f1b0d9c7a5e3f",
  "type": "link.created",
  "createdAt": "2026-11-22T08:15:30.123Z",
  "workspace": { "id": "acme", "name": "Acme" },
  "data": { "link": { "id": 42, "short": "https://lnk.example/Ab3dE9x", "code": "Ab3dE9x", "...": "..." } }
}`;

const EVENTS: [string, string, string][] = [
  ["link.created", "A link was created in the app or through the API.", "{ link }"],
  [
    "link.updated",
    "A link was edited. changed lists the link fields that differ; it is empty when only settings outside the link (targeting) changed.",
    "{ link, changed }",
  ],
  ["link.deleted", "A link was deleted; the link as it was just before.", "{ link }"],
  [
    "link.bulk_created",
    "A bulk create (app import or API). At most 100 links per event; batch.index counts from 1. No link.created is sent for these.",
    "{ links, batch: { index, count } }",
  ],
  ["domain.verified", "A custom domain passed its DNS ownership check.", "{ domain: { id, host } }"],
  ["member.joined", "Someone became a member: via is invitation or added.", "{ member: { id, email, role, via } }"],
  ["webhook.test", "Only from the Test button, to that one endpoint; tried once.", "{ message }"],
  [
    "link.clicked",
    'A counted click (never a bot) on a link in the endpoint\'s scope: all links, some folders (with their subfolders), some tags or some links. Only for endpoints that select it by name: "all events" does not include it.',
    "{ click: { id, time, country, city, referrerHost, referrerUrl, device, browser, os, qr, target }, link }",
  ],
];

const CLICKED = `{
  "id": "evt_9b1d7e3a5c0f4b2d8a6e1c9f7b5d3a10",
  "type": "link.clicked",
  "createdAt": "2026-11-22T08:15:31.042Z",
  "workspace": { "id": "acme", "name": "Acme" },
  "data": {
    "click": {
      "id": "clk_4e2a9c7b1d5f3e8a0c6b2d9f",
      "time": 1795335331042,
      "country": "DE",
      "city": "Berlin",
      "referrerHost": "news.example",
      "referrerUrl": "https://news.example/item?id=1",
      "device": "mobile",
      "browser": "Safari",
      "os": "iOS",
      "qr": false,
      "target": "destination"
    },
    "link": { "id": 42, "short": "https://lnk.example/Ab3dE9x", "code": "Ab3dE9x", "...": "..." }
  }
}`;

function Section({ id, title, children }: { id: string; title: string; children: React.ReactNode }) {
  return (
    <section id={id} className="scroll-mt-6 space-y-3">
      <h2 className="text-xl font-semibold tracking-tight">{title}</h2>
      {children}
    </section>
  );
}

const code = "rounded bg-slate-100 px-1 py-0.5 font-mono text-[0.85em]";
const pre = "overflow-x-auto rounded-lg bg-slate-900 p-4 font-mono text-xs leading-relaxed text-slate-100";
const th = "border-b border-slate-200 px-3 py-2 text-left font-medium text-slate-600";
const td = "border-b border-slate-100 px-3 py-2 align-top";

export default function WebhooksDocsPage() {
  const cfg = config();
  return (
    <main id="main" tabIndex={-1} className="mx-auto max-w-3xl space-y-10 px-4 py-10 text-sm leading-relaxed text-slate-800">
      <header className="space-y-2">
        <p className="text-sm font-semibold text-brand-600">
          <Link href="/">Linkhop</Link> · Docs
        </p>
        <h1 className="text-3xl font-semibold tracking-tight">Receiving Linkhop webhooks</h1>
        <p>
          A workspace owner or admin registers an HTTPS endpoint on the workspace&apos;s Developers page. Linkhop then POSTs a signed JSON
          envelope to it whenever a selected event happens. This page is for the people who write that endpoint.
        </p>
      </header>

      <Section id="requests" title="The request">
        <p>
          <span className={code}>POST</span> to your URL with the envelope as the body and these headers:
        </p>
        <table className="w-full border-collapse">
          <thead>
            <tr>
              <th className={th}>Header</th>
              <th className={th}>Value</th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <td className={td}>Content-Type</td>
              <td className={td}>
                <span className={code}>application/json</span>
              </td>
            </tr>
            <tr>
              <td className={td}>User-Agent</td>
              <td className={td}>
                <span className={code}>{userAgent(cfg.APP_URL)}</span>
              </td>
            </tr>
            <tr>
              <td className={td}>Service-Event</td>
              <td className={td}>The event type, same as type in the body.</td>
            </tr>
            <tr>
              <td className={td}>Service-Delivery</td>
              <td className={td}>
                The event id, same as id in the body; identical on every retry and resend. Use it to skip events you have already handled.
              </td>
            </tr>
            <tr>
              <td className={td}>Service-Signature</td>
              <td className={td}>
                <span className={code}>t=&lt;unix seconds&gt;,v1=&lt;hex HMAC-SHA256&gt;</span>, see{" "}
                <a href="#verify" className="text-brand-600 underline">
                  Verifying
                </a>
                .
              </td>
            </tr>
          </tbody>
        </table>
        <p>
          Any <strong>2xx</strong> answer within <strong>10 seconds</strong> counts as delivered. Anything else is a failed attempt: other
          statuses, redirects (3xx are not followed), timeouts, refused connections, DNS and TLS failures. Only the first 1 KB of your
          answer is read; it is shown in the delivery log.
        </p>
        <p>
          Endpoints must use HTTPS on port 443 with a valid certificate, have no user name or password in the URL (put a token in the path
          or query instead) and resolve only to public addresses. The address is checked when the endpoint is saved and again before every
          attempt, and the connection goes to the address that was checked.
        </p>
      </Section>

      <Section id="envelope" title="The envelope">
        <pre tabIndex={0} className={pre}>
          {ENVELOPE}
        </pre>
        <ul className="list-disc space-y-1 pl-5">
          <li>
            <span className={code}>id</span>: <span className={code}>evt_</span> and 32 hex characters; the same on every retry and resend.
          </li>
          <li>
            <span className={code}>createdAt</span>: when the event happened (ISO 8601, UTC, milliseconds), not when the attempt was made.
            Events are sent in parallel and retried on their own schedules, so they can arrive out of order: compare createdAt to order
            them.
          </li>
          <li>
            <span className={code}>workspace.id</span>: the workspace key used in the app&apos;s URLs.
          </li>
          <li>
            Times inside links (<span className={code}>createdOn</span>, <span className={code}>expiresOn</span>,{" "}
            <span className={code}>startsOn</span>) are unix seconds.
          </li>
        </ul>
      </Section>

      <Section id="events" title="Events">
        <p>
          An endpoint receives the types it selected, or every type (including types added later). New types are added without notice:
          ignore the ones you do not handle. Types an endpoint can select today: {SELECTABLE_EVENT_TYPES.join(", ")}.
        </p>
        <table className="w-full border-collapse">
          <thead>
            <tr>
              <th className={th}>type</th>
              <th className={th}>When</th>
              <th className={th}>data</th>
            </tr>
          </thead>
          <tbody>
            {EVENTS.map(([type, when, data]) => (
              <tr key={type}>
                <td className={`${td} font-mono text-xs`}>{type}</td>
                <td className={td}>{when}</td>
                <td className={`${td} font-mono text-xs`}>{data}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <p>
          A <span className={code}>link.clicked</span> body (<span className={code}>time</span> is unix milliseconds, the same instant as{" "}
          <span className={code}>createdAt</span>; <span className={code}>target</span> is destination, ios, android or geo; it never
          carries the visitor&apos;s address or any visitor key):
        </p>
        <pre tabIndex={0} className={pre}>
          {CLICKED}
        </pre>
        <p>
          Clicks are sent at most at the plan&apos;s delivery rate per endpoint (Team 50 a second, Business 200); more wait in order, and
          the Developers page shows each endpoint&apos;s backlog. Other endpoints are not held up by it.
        </p>
        <p>
          The link object has{" "}
          <span className={code}>
            id, short, code, domain, url, active, expiresOn, maxClicks, startsOn, fallbackUrl, createdOn, folder, title, notes
          </span>
          .
        </p>
      </Section>

      <Section id="retries" title="Retries and failures">
        <p>
          Each event is tried up to <strong>7 times</strong>: at once, then after 1 minute, 5 minutes, 30 minutes, 2 hours, 6 hours and 12
          hours (about 21 hours in total). The first 2xx ends it. A delivery that failed all 7 attempts can still be resent by hand from the
          delivery log; a resend carries the same event id and the same bytes, with a fresh signature.
        </p>
        <p>
          An endpoint is switched off after 20 events in a row failed every attempt, or when it has been failing with nothing delivered for
          three days; the workspace owner is emailed. While it is off nothing is sent and events are not kept for it. Turning it back on
          starts the failure count again.
        </p>
      </Section>

      <Section id="verify" title="Verifying the signature">
        <ol className="list-decimal space-y-1 pl-5">
          <li>
            Take <span className={code}>t</span> and every <span className={code}>v1</span> from the{" "}
            <span className={code}>Service-Signature</span> header.
          </li>
          <li>
            Compute HMAC-SHA256 of <span className={code}>t + &quot;.&quot; + raw body</span>, keyed with the endpoint&apos;s whole signing
            secret (<span className={code}>whsec_…</span>, prefix included, as UTF-8), as lowercase hex.
          </li>
          <li>
            Compare it with v1 in constant time. Use the body exactly as received: parsing and re-encoding the JSON changes the bytes.
          </li>
          <li>Reject t older (or newer) than about five minutes, so a captured request cannot be replayed later.</li>
        </ol>
        <p>
          The secret can be replaced on the Developers page; the replacement signs the next attempt, retries included. Here is a small
          receiver in Node.js:
        </p>
        <pre tabIndex={0} className={pre}>
          {EXAMPLE}
        </pre>
        <p>
          <span className={code}>verify-webhook.ts</span> is Linkhop&apos;s own <span className={code}>verifyWebhookSignature</span>, the
          function its tests check against real deliveries. It uses only <span className={code}>node:crypto</span>; copy it as it is:
        </p>
        <pre tabIndex={0} className={pre}>
          {verifyCode()}
        </pre>
      </Section>
    </main>
  );
}
