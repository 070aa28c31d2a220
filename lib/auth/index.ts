import NextAuth, { type NextAuthConfig } from "next-auth";
import { cache } from "react";
import Credentials from "next-auth/providers/credentials";
import GitHub from "next-auth/providers/github";
import Google from "next-auth/providers/google";
import { z } from "zod";
import { db } from "../db/client.ts";
import { verifyPassword } from "./password.ts";
import { signInWithOAuth } from "./oauth.ts";
import { safeNextPath } from "./next-path.ts";
import { endSessions, sessionIsCurrent, sessionVersionOf } from "./session.ts";

// Sessions are JWTs (required for the credentials provider). token.uid is our user id, token.sv
// the user's session version when it was issued (lib/auth/session.ts): checked on every use.
const credentialsSchema = z.object({ email: z.string().trim().toLowerCase().min(1), password: z.string().min(1) });

export function oauthProviders(): ("github" | "google")[] {
  const list: ("github" | "google")[] = [];
  if (process.env.AUTH_GITHUB_ID && process.env.AUTH_GITHUB_SECRET) list.push("github");
  if (process.env.AUTH_GOOGLE_ID && process.env.AUTH_GOOGLE_SECRET) list.push("google");
  return list;
}

const providers: NextAuthConfig["providers"] = [
  Credentials({
    credentials: { email: {}, password: {} },
    async authorize(raw) {
      const parsed = credentialsSchema.safeParse(raw);
      if (!parsed.success) return null;
      const user = await db().user.findUnique({ where: { email: parsed.data.email } });
      const ok = await verifyPassword(parsed.data.password, user?.passwordHash);
      return ok && user ? { id: String(user.id), email: user.email, name: user.name } : null;
    },
  }),
];
if (oauthProviders().includes("github")) providers.push(GitHub);
if (oauthProviders().includes("google")) providers.push(Google);

export const { handlers, auth, signIn, signOut } = NextAuth({
  trustHost: true,
  session: { strategy: "jwt", maxAge: 30 * 24 * 3600 },
  pages: { signIn: "/login" },
  providers,
  logger: {
    // A wrong password is an answer on the form, not a server error: keep it out of the log.
    error(error) {
      if ((error as { type?: string }).type === "CredentialsSignin") return;
      console.error("[auth]", error);
    },
  },
  events: {
    // Signing out ends every session of the user, so a copy of the cookie stops working too.
    async signOut(message) {
      const token = "token" in message ? message.token : null;
      if (token) await endSessions(token.uid, token.sv);
    },
  },
  callbacks: {
    async jwt({ token, user, account, profile }) {
      if (user) {
        let uid: number;
        if (account && account.provider !== "credentials") {
          const email = (profile?.email ?? user?.email ?? "").toLowerCase();
          uid = (await signInWithOAuth(account.provider, account.providerAccountId, email, user?.name ?? null)).id;
        } else {
          uid = Number(user.id);
        }
        const sv = await sessionVersionOf(uid);
        if (sv === null) return null;
        token.uid = uid;
        token.sv = sv;
        return token;
      }
      // Every later use: a deleted user, a sign-out or a password change since issue ends it.
      return (await sessionIsCurrent(token.uid, token.sv)) ? token : null;
    },
    async session({ session, token }) {
      if (token.uid) (session.user as { id?: string }).id = String(token.uid);
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
