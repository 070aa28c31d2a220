import type { Metadata } from "next";
import { RESET_LINK_MESSAGES, resetLinkState } from "@/lib/auth/password-reset";
import { ResetPasswordPanel } from "./form";

export const metadata: Metadata = { title: "Set a new password" };
export const dynamic = "force-dynamic";

// The link of the password reset mail. Opening it changes nothing (mail scanners open links too);
// posting the form with a new password uses it (lib/auth/password-reset.ts).
export default async function ResetPasswordPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const link = await resetLinkState(token);
  return (
    <ResetPasswordPanel
      token={token}
      link={link.state === "valid" ? { state: "valid", email: link.email } : { state: "problem", ...RESET_LINK_MESSAGES[link.state] }}
    />
  );
}
