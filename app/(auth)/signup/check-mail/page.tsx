import type { Metadata } from "next";
import { TextLink } from "@/components/ui";
import { PENDING_SIGNUP_HOURS } from "@/lib/auth/pending-signup";

export const metadata: Metadata = { title: "Check your email" };

// After signing up on an invite-only instance: the account is made by the mailed link
// (lib/auth/pending-signup.ts). The page names no address: it is only where the form leads.
export default function CheckMailPage() {
  return (
    <div className="text-center">
      <h1 className="text-lg font-semibold">Check your email</h1>
      <p role="status" className="mt-2 text-sm text-slate-600">
        We mailed a link to the address you gave. Open it within {PENDING_SIGNUP_HOURS} hours and enter the password you chose to finish
        creating your account.
      </p>
      <p className="mt-6 text-sm text-slate-600">
        Already finished? <TextLink href="/login">Sign in</TextLink>
      </p>
    </div>
  );
}
