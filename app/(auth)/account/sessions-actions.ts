"use server";
import { redirect } from "next/navigation";
import { currentSession, signOut } from "@/lib/auth";
import { endSessions } from "@/lib/auth/session";

/** "Sign out everywhere": ends every session of the account, this one included, then the login page. */
export async function signOutEverywhereAction(): Promise<void> {
  const session = await currentSession();
  if (!session) redirect("/login");
  // Explicitly here, not only through Auth.js's signOut event: this button's promise must not
  // depend on that event running.
  await endSessions(session.userId, session.sessionVersion);
  await signOut({ redirectTo: "/login?signedOut=everywhere" });
}
