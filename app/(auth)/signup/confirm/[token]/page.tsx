import type { Metadata } from "next";
import { PENDING_SIGNUP_MESSAGES, pendingSignUpState } from "@/lib/auth/pending-signup";
import { FinishSignUpPanel } from "./form";

export const metadata: Metadata = { title: "Finish creating your account" };
export const dynamic = "force-dynamic";

// The link of the mail sent at sign-up on an invite-only instance. Opening it changes nothing (mail
// scanners open links too); posting the form with the password chosen at sign-up makes the account
// (lib/auth/pending-signup.ts).
export default async function FinishSignUpPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const link = await pendingSignUpState(token);
  return (
    <FinishSignUpPanel
      token={token}
      link={link.state === "valid" ? { state: "valid", email: link.email } : { state: "problem", ...PENDING_SIGNUP_MESSAGES[link.state] }}
    />
  );
}
