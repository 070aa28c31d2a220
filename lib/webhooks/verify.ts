import { createHmac, timingSafeEqual } from "node:crypto";

// Webhook signatures (Service-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256>). The HMAC key is
// the whole signing secret (whsec_...) as UTF-8; the signed string is t, ".", then the raw body.
// This file imports nothing from the app: receivers may copy it as it is.

export function computeSignature(secret: string, timestamp: number, rawBody: string | Uint8Array): string {
  const h = createHmac("sha256", Buffer.from(secret, "utf8"));
  h.update(`${timestamp}.`, "utf8");
  h.update(typeof rawBody === "string" ? Buffer.from(rawBody, "utf8") : rawBody);
  return h.digest("hex");
}

/** The Service-Signature header value for one attempt. */
export function signatureHeader(secret: string, timestamp: number, rawBody: string | Uint8Array): string {
  return `t=${timestamp},v1=${computeSignature(secret, timestamp, rawBody)}`;
}

export type VerifyOptions = {
  /** Reject signatures older (or further in the future) than this; default 300 (five minutes). */
  toleranceSeconds?: number;
  /** The current unix time in seconds (for tests). */
  now?: number;
};

/**
 * True when `header` (the Service-Signature value) carries a v1 signature of `rawBody` made with
 * `secret` at a time within the tolerance. Pass the body exactly as received (a Buffer or the
 * unparsed string): parsing and re-encoding the JSON changes the bytes.
 */
export function verifyWebhookSignature(
  rawBody: string | Uint8Array,
  header: string | null | undefined,
  secret: string,
  options: VerifyOptions = {},
): boolean {
  if (!header || !secret) return false;
  let timestamp: number | null = null;
  const candidates: string[] = [];
  for (const part of header.split(",")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === "t" && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    else if (key === "v1" && /^[0-9a-f]{64}$/.test(value)) candidates.push(value);
  }
  if (timestamp === null || candidates.length === 0) return false;
  const tolerance = options.toleranceSeconds ?? 300;
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > tolerance) return false;
  const expected = Buffer.from(computeSignature(secret, timestamp, rawBody), "hex");
  // Check every candidate so the time taken does not depend on which one matched.
  let ok = false;
  for (const c of candidates) ok = timingSafeEqual(expected, Buffer.from(c, "hex")) || ok;
  return ok;
}
