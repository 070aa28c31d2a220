import NextAuth, { CredentialsSignin, type NextAuthConfig } from "next-auth";
import { cache } from "react";
import Credentials from "next-auth/providers/credentials";
import GitHub from "next-auth/providers/github";
import Google from "next-auth/providers/google";
import { z } from "zod";
import { db } from "../db/client.ts";
import { verifyPassword } from "./password.ts";
import { CLOSED_MESSAGE, INVITE_ONLY_MESSAGE } from "../instance/signup.ts";
import { OAuthRefused, providerVerifiedEmail, signInWithOAuth } from "./oauth.ts";
import { oidcProvider } from "./oidc.ts";
import { safeNextPath } from "./next-path.ts";
import { endSessions, sessionIsCurrent, sessionVersionOf } from "./session.ts";
import { clientAddressFrom } from "./client-address.ts";
import { now } from "../clock.ts";
import { signInSucceeded, takeSignInAttempt, tooManyAttemptsMessage } from "./throttle.ts";
import { completeSignIn, decoyPendingToken, pendingSignInToken } from "./two-factor.ts";
import { setPendingSignIn } from "./pending-cookie.ts";
import { isKnownClient, rememberKnownClient } from "./known-client.ts";
import { log } from "../log/index.ts";

// Sessions are JWTs (required for the credentials provider). token.uid is our user id, token.sv
// the user's session version when it was issued (lib/auth/session.ts): checked on every use;
// token.at the instant (ms) of the sign-in that issued it, for "signed in recently" (lib/auth/reauth.ts).
const credentialsSchema = z.object({ email: z.string().trim().toLowerCase().min(1).max(254), password: z.string().min(1).max(1024) });
// The second step of a sign-in with a second factor: the pending token (lib/auth/two-factor.ts) and the code.
const secondStepSchema = z.object({ pending: z.string().min(1).max(200), code: z.string().min(1).max(64) });

const TOO_MANY = "too_many_attempts";
export const SECOND_FACTOR_REQUIRED = "second_factor";

/**
 * The password was right and the account has a second factor: no session yet. The sign-in forms
 * put `pendingToken` in a short-lived cookie and ask for the code; the HTTP endpoint's answer
 * carries only the code "second_factor" (the token never goes into a URL).
 */
class SecondFactorRequired extends CredentialsSignin {
  constructor(readonly pendingToken: string) {
    super();
    this.code = SECOND_FACTOR_REQUIRED;
  }
}

/** The pending token of a sign-in that now needs the code (see SecondFactorRequired), else null. */
export function pendingTokenOf(e: unknown): string | null {
  const token = (e as { pendingToken?: unknown } | null)?.pendingToken;
  return typeof token === "string" ? token : null;
}

/** The sign-in limit was reached (lib/auth/throttle.ts). The code, which ends up in the URL of the
 * HTTP sign-in's answer, carries only the minutes to wait. */
class TooManySignInAttempts extends CredentialsSignin {
  constructor(retryAfterSeconds: number) {
    super();
    this.code = `${TOO_MANY}.${Math.max(1, Math.ceil(retryAfterSeconds / 60))}`;
  }
}

/** Auth.js errors a client's request causes (answered with a 4xx). */
const CLIENT_ERRORS = new Set(["UnknownAction", "InvalidProvider", "MissingCSRF", "InvalidCallbackUrl"]);

/**
 * What a sign-in form says for an error thrown by signIn("credentials"): the limit's message, or
 * `wrong` for every other refusal (an unknown email and a wrong password look the same).
 */
export function signInErrorMessage(e: CredentialsSignin | Error, wrong: string): string {
  const code = (e as CredentialsSignin).code;
  return tooManyMessageFromCode(code) ?? wrong;
}

const OAUTH_MESSAGES: Record<string, string> = {
  oauth_no_email: "The provider did not share an email address. Allow access to your email address, or sign in with a password.",
  oauth_unverified_email:
    "The provider does not confirm that this email address is yours. Verify it with the provider first, or sign in with your password.",
  oauth_account_unverified:
    "A Linkhop account with this email address exists, but its address is not verified. Sign in with its password and verify the address first; then this sign-in works.",
  oauth_confirm_mail:
    "The provider does not confirm that this email address is yours, so we sent a link to it. Open that link, then choose “Forgot password?” to set a password for your account.",
  signup_closed: CLOSED_MESSAGE,
  signup_invite_only: INVITE_ONLY_MESSAGE,
};

/** The message for the login page's `?error=&code=` (where Auth.js sends a refused HTTP sign-in). */
export function signInPageMessage(error: unknown, code: unknown): string | undefined {
  if (typeof error !== "string" || !error) return undefined;
  if (error === "CredentialsSignin" && code === SECOND_FACTOR_REQUIRED) return "This account has a second factor: sign in with this form.";
  if (error === "CredentialsSignin") return tooManyMessageFromCode(code) ?? "Wrong email or password.";
  return OAUTH_MESSAGES[error] ?? "Signing in did not work. Try again.";
}

/** "too_many_attempts.<minutes>" as the message shown, else null (the login page reads ?code=). */
export function tooManyMessageFromCode(code: unknown): string | null {
  if (typeof code !== "string" || !code.startsWith(`${TOO_MANY}.`)) return null;
  const minutes = Number(code.slice(TOO_MANY.length + 1));
  return Number.isInteger(minutes) && minutes > 0 && minutes <= 24 * 60 ? tooManyAttemptsMessage(minutes * 60) : tooManyAttemptsMessage(60);
}

export function oauthProviders(): ("github" | "google" | "oidc")[] {
  const list: ("github" | "google" | "oidc")[] = [];
  if (process.env.AUTH_GITHUB_ID && process.env.AUTH_GITHUB_SECRET) list.push("github");
  if (process.env.AUTH_GOOGLE_ID && process.env.AUTH_GOOGLE_SECRET) list.push("google");
  if (oidcProvider()) list.push("oidc");
  return list;
}

const providers: NextAuthConfig["providers"] = [
  Credentials({
    credentials: { email: {}, password: {}, pending: {}, code: {} },
    // Every credentials sign-in comes here (the login form, the invitation page, the HTTP
    // callback), so the limit is checked here, with the address server.ts stamped on the request.
    // A session comes only from a right password without a second factor, or from the code step.
    async authorize(raw, request) {
      const address = clientAddressFrom(request.headers);
      const second = secondStepSchema.safeParse(raw);
      if (second.success) {
        const r = await completeSignIn(second.data.pending, second.data.code, address);
        if (r.ok) return { id: String(r.user.id), email: r.user.email, name: r.user.name };
        if (r.retryAfterSeconds !== undefined) throw new TooManySignInAttempts(r.retryAfterSeconds);
        return null;
      }
      const parsed = credentialsSchema.safeParse(raw);
      if (!parsed.success) return null;
      const { email, password } = parsed.data;
      const user = await db().user.findUnique({ where: { email } });
      // The account-wide limit does not stop the owner's own browser, nor an account whose
      // password alone opens nothing (a second factor follows): lib/auth/throttle.ts.
      const known = isKnownClient(request.headers.get("cookie"), email);
      const gate = await takeSignInAttempt(email, address, { accountLimit: known ? "skip" : user?.totpEnabledAt ? "report" : "applies" });
      if (!gate.ok) throw new TooManySignInAttempts(gate.retryAfterSeconds);
      const ok = await verifyPassword(password, user?.passwordHash);
      if (user && gate.accountLocked) {
        // Locked, with a second factor: on to the code step either way, so the answer does not
        // tell a right password from a wrong one; after a wrong one no code can succeed.
        if (ok) await signInSucceeded(gate);
        const decoy = decoyPendingToken(user.id, user.sessionVersion);
        throw new SecondFactorRequired(ok ? ((await pendingSignInToken(user.id)) ?? decoy) : decoy);
      }
      if (!ok || !user) return null;
      await signInSucceeded(gate);
      const pending = await pendingSignInToken(user.id);
      if (pending) throw new SecondFactorRequired(pending);
      return { id: String(user.id), email: user.email, name: user.name };
    },
  }),
];
if (oauthProviders().includes("github")) providers.push(GitHub);
if (oauthProviders().includes("google")) providers.push(Google);
const oidc = oidcProvider();
if (oidc) providers.push(oidc);

export const { handlers, auth, signIn, signOut } = NextAuth({
  trustHost: true,
  session: { strategy: "jwt", maxAge: 30 * 24 * 3600 },
  pages: { signIn: "/login" },
  providers,
  logger: {
    // A wrong password is an answer on the form, and an unknown /api/auth path or provider or a
    // missing CSRF token is the client's mistake (Auth.js answers it with a 4xx): none is a server
    // error, so none goes to the error log with a stack.
    error(error) {
      const type = (error as { type?: string }).type;
      if (type === "CredentialsSignin") return;
      // an unknown provider id in the path is a plain Error in Auth.js, known only by its message
      const unknownProvider = /^Provider with id "[^"]*" not found/.test(error.message);
      if ((type && CLIENT_ERRORS.has(type)) || unknownProvider) return void log("auth").warn(`refused: ${type ?? "unknown provider"}`);
      log("auth").error({ err: error }, "Auth.js error");
    },
  },
  events: {
    // A full sign-in (no second step pending): this browser is a known client of the account.
    async signIn({ user }) {
      if (user?.email) await rememberKnownClient(user.email);
    },
    // Signing out ends every session of the user, so a copy of the cookie stops working too.
    async signOut(message) {
      const token = "token" in message ? message.token : null;
      if (token) await endSessions(token.uid, token.sv);
    },
  },
  callbacks: {
    // GitHub / Google / OIDC: find, link or create the user (lib/auth/oauth.ts); a refusal goes back to
    // the login page, which says why. An account with a second factor is asked for its code here
    // too: a provider's own second factor is neither known nor required, so it does not count.
    async signIn({ user, account, profile }) {
      if (!account || account.provider === "credentials") return true;
      const email = String(profile?.email ?? user?.email ?? "");
      const emailVerified = await providerVerifiedEmail(account.provider, email, profile ?? undefined, account.access_token);
      try {
        const signedIn = await signInWithOAuth({
          provider: account.provider,
          providerAccountId: account.providerAccountId,
          email,
          name: user?.name ?? null,
          emailVerified,
        });
        const pending = await pendingSignInToken(signedIn.id);
        if (!pending) return true;
        await setPendingSignIn(pending);
        return "/login/two-factor";
      } catch (e) {
        if (e instanceof OAuthRefused) return `/login?error=${e.reason}`;
        throw e;
      }
    },
    async jwt({ token, user, account }) {
      if (user) {
        let uid: number;
        if (account && account.provider !== "credentials") {
          const linked = await db().account.findUnique({
            where: { provider_providerAccountId: { provider: account.provider, providerAccountId: account.providerAccountId } },
            select: { userId: true },
          });
          if (!linked) return null;
          uid = linked.userId;
        } else {
          uid = Number(user.id);
        }
        const sv = await sessionVersionOf(uid);
        if (sv === null) return null;
        token.uid = uid;
        token.sv = sv;
        // Auth.js renews iat on every refresh of the cookie; this stays the sign-in's instant.
        token.at = now().getTime();
        return token;
      }
      // Every later use: a deleted user, a sign-out or a password change since issue ends it.
      return (await sessionIsCurrent(token.uid, token.sv)) ? token : null;
    },
    async session({ session, token }) {
      if (token.uid) (session.user as { id?: string }).id = String(token.uid);
      // Read on the server by currentSession (not secrets: the version and the sign-in's instant).
      const s = session as typeof session & { sv?: unknown; signedInAt?: unknown };
      s.sv = token.sv;
      s.signedInAt = token.at;
      return session;
    },
    // Where Auth.js itself redirects after an OAuth sign-in: only paths of this app.
    redirect({ url, baseUrl }) {
      const path = url.startsWith(baseUrl) ? url.slice(baseUrl.length) || "/" : url;
      return `${baseUrl}${safeNextPath(path)}`;
    },
  },
});

/** The signed-in user's id, or null. Memoized per request (layout and page both ask). */
export const currentUserId = cache(async function currentUserId(): Promise<number | null> {
  const session = await auth();
  const id = Number((session?.user as { id?: string } | undefined)?.id);
  // The jwt callback has already checked that the user exists and the session is current.
  return Number.isInteger(id) && id > 0 ? id : null;
});

/** The signed-in session: user id, session version and when its sign-in happened (ms; null for sessions issued before it was recorded). */
export const currentSession = cache(async function currentSession(): Promise<{
  userId: number;
  sessionVersion: number;
  signedInAt: number | null;
} | null> {
  const session = (await auth()) as (Record<string, unknown> & { user?: { id?: string } }) | null;
  const id = Number(session?.user?.id);
  if (!Number.isInteger(id) || id <= 0) return null;
  return {
    userId: id,
    sessionVersion: typeof session?.sv === "number" ? session.sv : 0,
    signedInAt: typeof session?.signedInAt === "number" ? session.signedInAt : null,
  };
});
