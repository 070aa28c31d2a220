import type { DbOrTx } from "../db/client.ts";

// GitHub / Google / OpenID Connect identities (the Account table) linked to a user. An identity
// linked while the user's address was unverified (lib/auth/oauth.ts: a provider that did not vouch
// for the address made the account) proves nothing about who owns the address: an outsider can
// sign in at a provider with someone else's address. It signs nobody in, and is dropped when the
// mailbox proves the address, so the owner who then takes the account over never shares it.

/** Drops the user's identities linked while the address was unverified (in the caller's transaction). */
export async function dropUnverifiedIdentities(tx: DbOrTx, userId: number): Promise<number> {
  const { count } = await tx.account.deleteMany({ where: { userId, linkedUnverified: true } });
  return count;
}
