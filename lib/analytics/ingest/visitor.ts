import { createHmac, randomBytes } from "node:crypto";
import type { SaltKeeper } from "../model.ts";

// Unique visitors without keeping anything that identifies a person: the key is an HMAC of
// address + User-Agent under a random salt of the UTC day. Every app process shares the day's salt
// (kept by the click store, made by whichever process needs it first), and salts are
// deleted two days later, so a key can never be recomputed from an address afterwards. The raw
// address is never stored.

/** 64 bits of HMAC-SHA256(salt, address \n userAgent), as a signed bigint in decimal (for a bigint column). */
export function visitorKey(salt: Buffer, address: string | null | undefined, userAgent: string | undefined): string {
  const mac = createHmac("sha256", salt)
    .update(`${address ?? ""}\n${userAgent ?? ""}`)
    .digest();
  return mac.readBigInt64BE(0).toString();
}

export class VisitorSalts {
  private salts = new Map<number, Buffer>();
  constructor(private keeper: SaltKeeper) {}

  async saltFor(day: number): Promise<Buffer> {
    const known = this.salts.get(day);
    if (known) return known;
    const salt = await this.keeper.visitorSalt(day, randomBytes(32));
    this.salts.set(day, salt);
    for (const d of this.salts.keys()) if (d < day - 1) this.salts.delete(d);
    return salt;
  }

  /** Forgets salts older than yesterday, here and in the store. */
  async prune(today: number): Promise<void> {
    for (const d of this.salts.keys()) if (d < today - 1) this.salts.delete(d);
    await this.keeper.pruneVisitorSalts(today - 1);
  }
}
