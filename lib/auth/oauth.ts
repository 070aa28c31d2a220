import { randomBytes } from "node:crypto";
import { db } from "../db/client.ts";
import { ServiceError } from "../errors.ts";
import { SignUpRefused } from "../instance/signup.ts";
import { signUp } from "./users.ts";
import { sendVerificationMail } from "./verification.ts";
import { log } from "../log/index.ts";

// GitHub / Google / OpenID Connect (lib/auth/oidc.ts) sign-in. An identity already linked signs in
// its user. Otherwise the address decides: a new address makes a new account (verified when the
// provider vouches for the address); an existing account is linked only when the provider vouches
// for the address AND the account has verified it. Without the second condition, whoever registered someone else's
// address with a password first would keep access once its owner signs in with Google.
//
// A new account from a provider that does NOT vouch for the address is the other way round: its
// identity is recorded as linked unverified and signs nobody in until the mailbox confirms the
// address, and that confirmation drops it (lib/auth/identities.ts). Otherwise an outsider could
// sign in at a provider with someone else's address, wait for its owner to verify and set a
// password, and still sign in to the account through the provider.

export type OAuthIdentity = { provider: string; providerAccountId: string; email: string; name: string | null; emailVerified: boolean };

/** Why an OAuth sign-in is refused; the login page words each (app/(auth)/login). */
export type OAuthRefusal =
  "oauth_no_email" | "oauth_unverified_email" | "oauth_account_unverified" | "oauth_confirm_mail" | "signup_closed" | "signup_invite_only";

export class OAuthRefused extends ServiceError {
  constructor(readonly reason: OAuthRefusal) {
    super("forbidden", reason);
  }
}

/** The user for an OAuth identity: linked, linked now, or created with its first workspace. */
export async function signInWithOAuth(identity: OAuthIdentity) {
  const { provider, providerAccountId, name, emailVerified } = identity;
  const email = identity.email.trim().toLowerCase();
  const linked = await db().account.findUnique({
    where: { provider_providerAccountId: { provider, providerAccountId } },
    include: { user: true },
  });
  if (linked) {
    if (emailVerified && linked.user.email === email) {
      // The provider vouches for the account's address now: it is verified, the identity with it.
      if (!linked.user.emailVerifiedAt) {
        await db().user.updateMany({ where: { id: linked.user.id, emailVerifiedAt: null }, data: { emailVerifiedAt: new Date() } });
      }
      if (linked.linkedUnverified) await db().account.update({ where: { id: linked.id }, data: { linkedUnverified: false } });
      return linked.user;
    }
    if (linked.linkedUnverified) throw new OAuthRefused("oauth_confirm_mail");
    return linked.user;
  }
  if (!email) throw new OAuthRefused("oauth_no_email");
  let user = await db().user.findUnique({ where: { email } });
  if (user) {
    if (!emailVerified) throw new OAuthRefused("oauth_unverified_email");
    if (!user.emailVerifiedAt) throw new OAuthRefused("oauth_account_unverified");
  } else {
    // An OAuth-only account: a random password nobody knows, so sign-up's one path is reused.
    // A new account: only when the instance's sign-up mode allows it (lib/instance/signup.ts); on
    // an invite-only instance also only when the provider vouches for the address.
    const password = randomBytes(24).toString("base64url");
    const created = await signUp({ email, password, name: name ?? undefined }, { mailboxConfirmed: emailVerified }).catch((e) => {
      if (e instanceof SignUpRefused) {
        throw new OAuthRefused(e.mode === "closed" ? "signup_closed" : emailVerified ? "signup_invite_only" : "oauth_unverified_email");
      }
      throw e;
    });
    user = await db().user.update({
      where: { id: created.user.id },
      data: { passwordHash: null, emailVerifiedAt: emailVerified ? new Date() : null },
    });
  }
  const linkedUnverified = !user.emailVerifiedAt;
  await db().account.create({ data: { provider, providerAccountId, userId: user.id, linkedUnverified } });
  if (linkedUnverified) {
    await sendVerificationMail(user.id);
    throw new OAuthRefused("oauth_confirm_mail");
  }
  return user;
}

/** Whether the provider vouches that the address is the user's. */
export async function providerVerifiedEmail(
  provider: string,
  email: string,
  profile: Record<string, unknown> | undefined,
  accessToken: string | undefined,
): Promise<boolean> {
  // Google and any OpenID Connect provider say so in the standard claim (OpenID Connect Core §5.1);
  // only a boolean true counts, not a missing claim nor the string "true".
  if (provider === "google" || provider === "oidc") return profile?.email_verified === true;
  if (provider === "github") return githubEmailVerified(email, accessToken);
  return false;
}

/** GitHub's profile does not say; its list of the user's addresses does (scope user:email). */
async function githubEmailVerified(email: string, accessToken: string | undefined): Promise<boolean> {
  if (!accessToken || !email) return false;
  try {
    const res = await fetch("https://api.github.com/user/emails", {
      headers: { authorization: `Bearer ${accessToken}`, accept: "application/vnd.github+json", "user-agent": "Linkhop" },
      signal: AbortSignal.timeout(10_000),
    });
    if (!res.ok) return false;
    const list = (await res.json()) as { email?: string; verified?: boolean }[];
    return Array.isArray(list) && list.some((e) => e.verified === true && e.email?.toLowerCase() === email.toLowerCase());
  } catch (e) {
    log("auth").error({ err: e }, "GitHub email check failed");
    return false;
  }
}
