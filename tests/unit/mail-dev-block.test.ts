import { afterEach, describe, expect, it } from "vitest";
import { prettyLine } from "../../lib/log/pretty.ts";
import { startLog } from "../../lib/log/index.ts";
import { peekShared, setShared } from "../../lib/registry.ts";
import { devMailBlock, linksOf } from "../../lib/mail/dev-block.ts";
import { logRecords } from "../support/logs.ts";

// Without SMTP_URL a mail goes to the log: for a person at a terminal (pretty logs) a short block,
// to and subject on one line, each link on a line of its own; in JSON lines the whole text.

const TEXT = [
  "Hello,",
  "",
  "Confirm your address by opening this link within 24 hours:",
  "http://localhost:3000/verify/AbC_123-xyz.",
  "",
  "If you did not sign up, ignore this mail. See https://linkhop.example/help, or reply.",
].join("\n");

describe("the development mail block", () => {
  const before = peekShared("log");
  afterEach(() => setShared("log", before));

  it("finds each link once, without the sentence's full stop or comma", () => {
    expect(linksOf(TEXT)).toEqual(["http://localhost:3000/verify/AbC_123-xyz", "https://linkhop.example/help"]);
    expect(linksOf(TEXT + "\nagain: http://localhost:3000/verify/AbC_123-xyz")).toHaveLength(2);
  });

  it("is to and subject on the first line, then one link per line", () => {
    expect(devMailBlock(["ada@example.test"], "Confirm your email address", TEXT).split("\n")).toEqual([
      "(no SMTP_URL) to ada@example.test: Confirm your email address",
      "  http://localhost:3000/verify/AbC_123-xyz",
      "  https://linkhop.example/help",
    ]);
  });

  it("is what sendMail logs with pretty logs and no SMTP_URL; JSON logs keep the whole text", async () => {
    const { resetConfig } = await import("../../lib/config/index.ts");
    const smtp = process.env.SMTP_URL;
    delete process.env.SMTP_URL;
    resetConfig();
    const { sendMail } = await import("../../lib/mail/index.ts");
    try {
      const lines: string[] = [];
      startLog({ format: "pretty", level: "info", stream: { write: (l: string) => void lines.push(l) } });
      expect(await sendMail({ to: "ada@example.test", subject: "Confirm your email address", text: TEXT })).toEqual({
        sent: false,
        via: "log",
      });
      const printed = logRecords(lines.join("")).map(prettyLine).join("").split("\n");
      expect(printed[0]).toMatch(/ INFO  \[mail\] \(no SMTP_URL\) to ada@example\.test: Confirm your email address$/);
      expect(printed[1]).toBe("  http://localhost:3000/verify/AbC_123-xyz");
      expect(printed).toHaveLength(4); // two links, then the closing newline

      const json: string[] = [];
      startLog({ format: "json", level: "info", stream: { write: (l: string) => void json.push(l) } });
      await sendMail({ to: "ada@example.test", subject: "Confirm your email address", text: TEXT });
      expect(logRecords(json.join(""))[0].msg).toContain(TEXT);
    } finally {
      if (smtp !== undefined) process.env.SMTP_URL = smtp;
      resetConfig();
    }
  });
});
