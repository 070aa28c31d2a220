import { randomBytes, randomFillSync } from "node:crypto";

export const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Uniform base62 characters from `bytes` (rejection sampling: no modulo bias). */
function base62From(length: number, bytes: (n: number) => Uint8Array): string {
  let out = "";
  while (out.length < length) {
    for (const b of bytes(length * 2)) {
      if (b < 248 && out.length < length) out += BASE62[b % 62];
    }
  }
  return out;
}

/** Uniform random base62 characters, each drawn from the system's generator: for secrets (API keys, webhook signing secrets). */
export function randomBase62(length: number): string {
  return base62From(length, randomBytes);
}

// Random bytes for values that are unique but not secret (request ids, generated link codes, event
// ids and the event statement's hole marks),
// taken from a 4 KiB buffer refilled from the same generator when used up: one call into OpenSSL
// per few hundred values instead of one per value (under load a call cost about 25 µs of a
// request's CPU, bench:api's profile). Each byte is handed out once. Secrets never come from here.
const POOL = Buffer.alloc(4096);
let poolOffset = POOL.length;

/** `n` random bytes for a non-secret value; valid until the next call. */
export function pooledRandomBytes(n: number): Buffer {
  if (n > POOL.length) return randomBytes(n);
  if (poolOffset + n > POOL.length) {
    randomFillSync(POOL);
    poolOffset = 0;
  }
  const bytes = POOL.subarray(poolOffset, poolOffset + n);
  poolOffset += n;
  return bytes;
}

/** Uniform random base62 characters for a non-secret value (a generated link code). */
export function pooledBase62(length: number): string {
  return base62From(length, pooledRandomBytes);
}
