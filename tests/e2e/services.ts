// Loopback services for the browser tests: a real SMTP server (the app's SMTP_URL) and a real DNS
// server (the app's DNS_SERVERS), started in the Playwright web-server process before the app.
// The tests (another process) reach them through a small control server on 127.0.0.1 whose port
// is written to <dataDir>/services.json: GET /mail lists the caught messages, POST /dns sets a
// record. Nothing here is part of the app.
import fs from "node:fs";
import http from "node:http";
import path from "node:path";

export type ServicesFile = { control: number; smtp: number; dns: number };

export async function startE2eServices(dataDir: string): Promise<void> {
  const { startSmtpServer } = await import("../support/smtp.ts");
  const { startDnsServer } = await import("../support/dns-server.ts");
  const smtp = await startSmtpServer();
  const dns = await startDnsServer();
  process.env.SMTP_URL = smtpUrl(smtp);
  process.env.DNS_SERVERS = `127.0.0.1:${dns.port}`;

  const control = http.createServer(async (req, res) => {
    const send = (status: number, body: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    try {
      if (req.method === "GET" && req.url === "/mail") {
        return send(
          200,
          smtp.messages.map((m) => ({ to: m.to, from: m.from, subject: m.subject, text: m.text, html: m.html ?? null })),
        );
      }
      if (req.method === "POST" && req.url === "/dns") {
        let raw = "";
        for await (const chunk of req) raw += chunk;
        const { name, type, values } = JSON.parse(raw) as { name: string; type: string; values: string[] };
        dns.set(name, type as never, values);
        return send(200, { ok: true });
      }
      send(404, { error: "not_found" });
    } catch (e) {
      send(500, { error: String(e) });
    }
  });
  await new Promise<void>((resolve) => control.listen(0, "127.0.0.1", resolve));
  const file: ServicesFile = { control: (control.address() as { port: number }).port, smtp: smtp.port, dns: dns.port };
  fs.writeFileSync(path.join(dataDir, "services.json"), JSON.stringify(file));
  control.unref();
}

function smtpUrl(smtp: { port: number; url?: string }): string {
  return smtp.url ?? `smtp://127.0.0.1:${smtp.port}`;
}
