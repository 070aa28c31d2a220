import { cookies } from "next/headers";
import { config } from "../config/index.ts";
import { PENDING_COOKIE, PENDING_SIGN_IN_SECONDS } from "./two-factor.ts";

// The cookie that carries a sign-in between the password (or GitHub/Google) and the code
// (lib/auth/two-factor.ts): httpOnly, this app's paths only, gone after 5 minutes or the code step.

export async function setPendingSignIn(token: string): Promise<void> {
  (await cookies()).set(PENDING_COOKIE, token, {
    httpOnly: true,
    sameSite: "lax",
    path: "/",
    secure: config().APP_URL.startsWith("https:"),
    maxAge: PENDING_SIGN_IN_SECONDS,
  });
}

export async function pendingSignIn(): Promise<string | null> {
  return (await cookies()).get(PENDING_COOKIE)?.value ?? null;
}

export async function clearPendingSignIn(): Promise<void> {
  (await cookies()).delete(PENDING_COOKIE);
}
