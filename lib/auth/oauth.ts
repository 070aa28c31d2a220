import { db } from "../db/client.ts";
import { signUp } from "../workspaces/index.ts";
import { randomBytes } from "node:crypto";

/** Finds the user for an OAuth identity, linking by email, or creates user and first workspace. */
export async function signInWithOAuth(provider: string, providerAccountId: string, email: string, name: string | null) {
  const linked = await db().account.findUnique({
    where: { provider_providerAccountId: { provider, providerAccountId } },
    include: { user: true },
  });
  if (linked) return linked.user;
  if (!email) throw new Error("The provider did not share an email address.");
  let user = await db().user.findUnique({ where: { email } });
  if (!user) {
    // An OAuth-only account: a random password nobody knows, so sign-up's one path is reused.
    const created = await signUp({ email, password: randomBytes(24).toString("base64url"), name: name ?? undefined });
    user = await db().user.update({ where: { id: created.user.id }, data: { passwordHash: null } });
  }
  await db().account.create({ data: { provider, providerAccountId, userId: user.id } });
  return user;
}
