import NextAuth, { type NextAuthConfig } from "next-auth";
import { cache } from "react";
import Credentials from "next-auth/providers/credentials";
import GitHub from "next-auth/providers/github";
import Google from "next-auth/providers/google";
import { z } from "zod";
import { db } from "../db/client.ts";
import { verifyPassword } from "./password.ts";
import { signInWithOAuth } from "./oauth.ts";

// Sessions are JWTs (required for the credentials provider). token.uid is our user id.
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
  callbacks: {
    async jwt({ token, user, account, profile }) {
      if (account && account.provider !== "credentials") {
        const email = (profile?.email ?? user?.email ?? "").toLowerCase();
        const u = await signInWithOAuth(account.provider, account.providerAccountId, email, user?.name ?? null);
        token.uid = u.id;
      } else if (user?.id) {
        token.uid = Number(user.id);
      }
      return token;
    },
    async session({ session, token }) {
      if (token.uid) (session.user as { id?: string }).id = String(token.uid);
      return session;
    },
  },
});

/** The signed-in user's id, or null. Memoized per request (layout and page both ask). */
export const currentUserId = cache(async function currentUserId(): Promise<number | null> {
  const session = await auth();
  const id = Number((session?.user as { id?: string } | undefined)?.id);
  if (!Number.isInteger(id) || id <= 0) return null;
  // A deleted user's old token must not pass.
  const exists = await db().user.findUnique({ where: { id }, select: { id: true } });
  return exists ? id : null;
});
