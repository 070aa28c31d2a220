import nodemailer, { type Transporter } from "nodemailer";
import { config } from "../config/index.ts";
import { shared } from "../registry.ts";
import { log, logOptions } from "../log/index.ts";
import { devMailBlock } from "./dev-block.ts";

// Outgoing mail: SMTP through nodemailer when SMTP_URL is set (smtp://user:pass@host:587,
// smtps://... for implicit TLS), otherwise the message is written to the server log so local
// installs still see invitations and notices.

export type Mail = { to: string | string[]; subject: string; text: string; html?: string };
export type MailResult = { sent: boolean; via: "smtp" | "log"; messageId?: string };

// one transport per SMTP_URL (tests change it between files)
function transport(url: string): Transporter {
  const byUrl = shared("mailer", () => new Map<string, Transporter>());
  let t = byUrl.get(url);
  if (!t) byUrl.set(url, (t = nodemailer.createTransport(url)));
  return t;
}

/** Sends one message; throws when the SMTP server refuses it (callers decide whether that matters). */
export async function sendMail(mail: Mail): Promise<MailResult> {
  const cfg = config();
  const to = Array.isArray(mail.to) ? mail.to : [mail.to];
  if (!cfg.SMTP_URL) {
    // without SMTP the log is how a local install reads its mail: for a person at a terminal a short
    // block with the links on lines of their own (dev-block.ts); in JSON lines the whole message
    if (logOptions().format === "pretty") log("mail").info(devMailBlock(to, mail.subject, mail.text));
    else log("mail").info({ to, subject: mail.subject }, `(no SMTP_URL) to ${to.join(", ")}: ${mail.subject}\n${mail.text}`);
    return { sent: false, via: "log" };
  }
  const info = await transport(cfg.SMTP_URL).sendMail({ from: cfg.MAIL_FROM, to, subject: mail.subject, text: mail.text, html: mail.html });
  return { sent: true, via: "smtp", messageId: info.messageId };
}
