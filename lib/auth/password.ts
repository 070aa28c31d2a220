import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import { withHashSlot, type HashLane } from "./hash-gate.ts";

// scrypt with N=2^15, r=8, p=1 (about 32 MiB, ~50 ms here): slow for guessing, fine for sign-in.
const N = 32768,
  R = 8,
  P = 1,
  KEYLEN = 32;

function derive(password: string, salt: Buffer, lane: HashLane): Promise<Buffer> {
  return withHashSlot(
    lane,
    () =>
      new Promise<Buffer>((resolve, reject) =>
        scrypt(password.normalize("NFKC"), salt, KEYLEN, { N, r: R, p: P, maxmem: 64 * 1024 * 1024 }, (err, key) =>
          err ? reject(err) : resolve(key),
        ),
      ),
  );
}

// How many hashes this process has made: tests count them (a bulk create must not hash a row's
// password before its cheap checks have passed) without replacing the real hasher.
let hashes = 0;

/** Passwords hashed by hashPassword in this process so far (for tests). */
export function passwordHashCount(): number {
  return hashes;
}

/** `lane`: "bulk" for link passwords set through the API or the app, which wait behind sign-ins (lib/auth/hash-gate.ts). */
export async function hashPassword(password: string, lane: HashLane = "interactive"): Promise<string> {
  hashes++;
  const salt = randomBytes(16);
  const key = await derive(password, salt, lane);
  return `scrypt$${N}$${R}$${P}$${salt.toString("base64url")}$${key.toString("base64url")}`;
}

export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  if (!stored) {
    await derive(password, randomBytes(16), "interactive"); // same cost whether or not the account exists
    return false;
  }
  const [scheme, , , , salt, key] = stored.split("$");
  if (scheme !== "scrypt" || !salt || !key) return false;
  const expected = Buffer.from(key, "base64url");
  const actual = await derive(password, Buffer.from(salt, "base64url"), "interactive");
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
