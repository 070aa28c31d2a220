import type { Metadata } from "next";
import Link from "next/link";
import { checkEmailChangeLink } from "@/lib/auth/email-change";
import { currentUserId } from "@/lib/auth";
import { buttonClass, secondaryButtonClass } from "@/components/ui";
import { ConfirmEmailForm } from "./confirm-form";

export const metadata: Metadata = { title: "Confirm your new email address" };
export const dynamic = "force-dynamic";

// The link mailed to the new address. Opening it only shows what it would do: the change is a
// button press (a POST), so a mail scanner that follows links changes nothing. The link proves the
// mailbox; the account's own session (sign-in, then back here) proves the account.
export default async function ConfirmEmailChangePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const link = await checkEmailChangeLink(token, await currentUserId());
  if (link.state === "valid") return <ConfirmEmailForm token={token} email={link.email} />;
  if (link.state === "sign_in") {
    return (
      <div className="text-center">
        <h1 className="text-lg font-semibold">Sign in to confirm</h1>
        <p className="mt-2 text-sm text-slate-600">Sign in with the account that asked for this change, then confirm it here.</p>
        <Link href={`/login?next=${encodeURIComponent(`/account/email/${token}`)}`} className={`${buttonClass} mt-6`}>
          Sign in
        </Link>
      </div>
    );
  }
  const [title, text] =
    link.state === "expired"
      ? ["This link has expired", "Ask for a new one on your Account page."]
      : [
          "This link is not valid",
          "It was used already, your account changed since it was sent, or it is incomplete. Ask for a new one on your Account page.",
        ];
  return (
    <div className="text-center">
      <h1 className="text-lg font-semibold">{title}</h1>
      <p className="mt-2 text-sm text-slate-600">{text}</p>
      <Link href="/account" className={`${secondaryButtonClass} mt-6`}>
        Your account
      </Link>
    </div>
  );
}
