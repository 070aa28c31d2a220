import type { Metadata } from "next";
import Link from "next/link";
import { safeNextPath } from "@/lib/auth/next-path";
import { verifyEmail } from "@/lib/auth/verification";
import { buttonClass, secondaryButtonClass } from "@/components/ui";

export const metadata: Metadata = { title: "Confirm your email" };
export const dynamic = "force-dynamic";

// The link of the verification mail. Opening it verifies (signed in or not: the link itself proves
// the mail was read). `next` (a path of this app, e.g. the invitation that asked for the
// confirmation) becomes a "Continue" button.
export default async function VerifyEmailPage({
  params,
  searchParams,
}: {
  params: Promise<{ token: string }>;
  searchParams: Promise<{ next?: string | string[] }>;
}) {
  const outcome = await verifyEmail((await params).token);
  const next = safeNextPath((await searchParams).next, null);
  const confirmed = outcome.state === "verified" || outcome.state === "already_verified";
  // An account made through a provider that did not vouch for the address has no password, and
  // its provider identity was dropped on confirming (lib/auth/identities.ts): it signs in once a
  // password is set.
  const needsPassword = confirmed && !outcome.hasPassword;
  const [title, text] =
    outcome.state === "verified"
      ? ["Email address confirmed", `Thanks: ${outcome.email} is verified.`]
      : outcome.state === "already_verified"
        ? ["Already confirmed", `${outcome.email} was verified before.`]
        : outcome.state === "expired"
          ? ["This link has expired", "Sign in and choose “Resend” in the notice at the top of the app for a new link."]
          : ["This link is not valid", "Check that you opened the whole link from the email, or ask for a new one from the app."];
  return (
    <div className="text-center">
      <h1 className="text-lg font-semibold">{title}</h1>
      <p className="mt-2 text-sm text-slate-600">{text}</p>
      {needsPassword ? (
        <>
          <p className="mt-2 text-sm text-slate-600">To sign in, set a password for your account.</p>
          <Link href="/forgot-password" className={`${buttonClass} mt-6`}>
            Set a password
          </Link>
        </>
      ) : confirmed && next && next !== "/" ? (
        <Link href={next} className={`${buttonClass} mt-6`}>
          Continue
        </Link>
      ) : (
        <Link href="/" className={`${secondaryButtonClass} mt-6`}>
          Go to Linkhop
        </Link>
      )}
    </div>
  );
}
