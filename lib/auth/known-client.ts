import { createHmac, timingSafeEqual } from "node:crypto";
import { cookies } from "next/headers";
import { config } from "../config/index.ts";
import { log } from "../log/index.ts";

// A client that signed in to an account before (a "device cookie"): after a full sign-in the
// browser keeps a mark per account, an HMAC of the address keyed with AUTH_SECRET that only this
// server can make. A client showing the account's mark is not stopped by the account-wide sign-in
// limit (lib/auth/throttle.ts), so a stranger who locks the account with wrong passwords from many
// addresses does not lock out its owner's browser. The other limits (per client, per account and
// client) still apply, and the password is still checked.

export const KNOWN_CLIENT_COOKIE = "linkhop.known-client";
const MARKS_KEPT = 5; // accounts remembered per browser
const MAX_AGE_SECONDS = 365 * 86_400;

function markOf(email: string): string {
  const secret = process.env.AUTH_SECRET;
  if (!secret) throw new Error("AUTH_SECRET is not set: start through server.ts or set it");
  return createHmac("sha256", `linkhop-known-client\n${secret}`)
    .update(email.trim().toLowerCase())
    .digest()
    .subarray(0, 16)
    .toString("base64url");
}

function marksIn(value: string | undefined): string[] {
  return (value ?? "").split(".").filter((m) => /^[A-Za-z0-9_-]{22}$/.test(m));
}

/** Whether the request's cookies (a `Cookie` header) hold the mark of the account with `email`. */
export function isKnownClient(cookieHeader: string | null | undefined, email: string): boolean {
  const prefix = `${KNOWN_CLIENT_COOKIE}=`;
  const value = (cookieHeader ?? "")
    .split(";")
    .map((c) => c.trim())
    .find((c) => c.startsWith(prefix))
    ?.slice(prefix.length);
  const expected = Buffer.from(markOf(email));
  return marksIn(value).some((m) => timingSafeEqual(Buffer.from(m), expected));
}

/** After a full sign-in: this browser keeps the account's mark (the newest few accounts). */
export async function rememberKnownClient(email: string): Promise<void> {
  try {
    const jar = await cookies();
    const mark = markOf(email);
    const marks = [mark, ...marksIn(jar.get(KNOWN_CLIENT_COOKIE)?.value).filter((m) => m !== mark)].slice(0, MARKS_KEPT);
    jar.set(KNOWN_CLIENT_COOKIE, marks.join("."), {
      httpOnly: true,
      sameSite: "lax",
      path: "/",
      secure: config().APP_URL.startsWith("https:"),
      maxAge: MAX_AGE_SECONDS,
    });
  } catch (e) {
    // Outside a request that can set cookies: the sign-in stands, only the mark is missing.
    log("auth").warn({ err: e }, "could not set the known-client cookie");
  }
}
