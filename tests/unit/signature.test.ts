import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { computeSignature, signatureHeader, verifyWebhookSignature } from "../../lib/webhooks/verify.ts";

const secret = "whsec_" + "a1B2c3D4e5".repeat(4) + "x1Y2z3W4";
const body =
  '{"id":"evt_0123456789abcdef0123456789abcdef","type":"link.created","createdAt":"2026-11-22T08:00:00.123Z","workspace":{"id":"acme","name":"Acmé"},"data":{}}';
const now = 1_790_000_000;

describe("webhook signatures", () => {
  it("is HMAC-SHA256 of t.body keyed with the whole secret string, lowercase hex", () => {
    const expected = createHmac("sha256", secret).update(`${now}.${body}`).digest("hex");
    expect(computeSignature(secret, now, body)).toBe(expected);
    expect(signatureHeader(secret, now, body)).toBe(`t=${now},v1=${expected}`);
  });

  it("verifies over the exact bytes, string or Buffer", () => {
    const header = signatureHeader(secret, now, body);
    expect(verifyWebhookSignature(body, header, secret, { toleranceSeconds: 300, now })).toBe(true);
    expect(verifyWebhookSignature(Buffer.from(body), header, secret, { toleranceSeconds: 300, now })).toBe(true);
  });

  it("fails when the body was re-encoded", () => {
    const header = signatureHeader(secret, now, body);
    const reencoded = JSON.stringify(JSON.parse(body), null, 2);
    expect(verifyWebhookSignature(reencoded, header, secret, { now })).toBe(false);
    expect(verifyWebhookSignature(body + " ", header, secret, { now })).toBe(false);
  });

  it("fails with another secret, a tampered signature or a tampered timestamp", () => {
    const header = signatureHeader(secret, now, body);
    expect(verifyWebhookSignature(body, header, secret.replace("a1", "a2"), { now })).toBe(false);
    expect(
      verifyWebhookSignature(
        body,
        header.replace(/.$/, (c) => (c === "0" ? "1" : "0")),
        secret,
        { now },
      ),
    ).toBe(false);
    expect(verifyWebhookSignature(body, header.replace(`t=${now}`, `t=${now + 1}`), secret, { now })).toBe(false);
  });

  it("rejects signatures outside the tolerance (replay), in both directions", () => {
    const old = signatureHeader(secret, now - 301, body);
    expect(verifyWebhookSignature(body, old, secret, { toleranceSeconds: 300, now })).toBe(false);
    expect(verifyWebhookSignature(body, signatureHeader(secret, now - 299, body), secret, { toleranceSeconds: 300, now })).toBe(true);
    expect(verifyWebhookSignature(body, signatureHeader(secret, now + 301, body), secret, { toleranceSeconds: 300, now })).toBe(false);
  });

  it("defaults to five minutes of tolerance and the current time", () => {
    const t = Math.floor(Date.now() / 1000);
    expect(verifyWebhookSignature(body, signatureHeader(secret, t, body), secret)).toBe(true);
    expect(verifyWebhookSignature(body, signatureHeader(secret, t - 400, body), secret)).toBe(false);
  });

  it("accepts any matching v1 among several (secret rotation) and ignores unknown parts", () => {
    const good = computeSignature(secret, now, body);
    const header = `t=${now},v0=zzz,v1=${"0".repeat(64)},v1=${good}`;
    expect(verifyWebhookSignature(body, header, secret, { now })).toBe(true);
  });

  it.each([null, undefined, "", "garbage", `t=${now}`, `v1=${"0".repeat(64)}`, `t=abc,v1=${"0".repeat(64)}`, `t=${now},v1=XYZ`])(
    "rejects a malformed header %s",
    (header) => {
      expect(verifyWebhookSignature(body, header, secret, { now })).toBe(false);
    },
  );

  it("rejects an empty secret", () => {
    expect(verifyWebhookSignature(body, signatureHeader("", now, body), "", { now })).toBe(false);
  });
});
