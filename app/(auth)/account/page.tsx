import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { currentUserId } from "@/lib/auth";
import { accountOf } from "@/lib/workspaces";
import { TextLink } from "@/components/ui";
import { PasswordForm } from "./password-form";
import { RECENT_SIGN_IN_MINUTES } from "@/lib/auth/reauth";
import { TwoFactorSection } from "./two-factor";
import { EmailChangeForm } from "./email-form";
import { SignOutEverywhere } from "./sign-out-everywhere";
import { DeleteAccountSection } from "./delete-account-section";

export const metadata: Metadata = { title: "Your account" };
export const dynamic = "force-dynamic";

export default async function AccountPage({ searchParams }: { searchParams: Promise<{ changed?: string | string[] }> }) {
  const userId = await currentUserId();
  if (!userId) redirect("/login?next=/account");
  const me = await accountOf(userId);
  return (
    <>
      <h1 className="text-lg font-semibold">Your account</h1>
      <p className="mb-4 mt-1 text-sm text-slate-600">
        Signed in as <strong>{me.email}</strong>.
      </p>
      {(await searchParams).changed === "1" && (
        <p role="status" className="mb-4 rounded-md border border-green-200 bg-green-50 px-3 py-2 text-sm text-green-800">
          Password changed. Every other session of your account was signed out.
        </p>
      )}
      {me.hasPassword ? (
        <PasswordForm />
      ) : (
        <p className="text-sm text-slate-700">This account signs in with GitHub or Google; it has no password.</p>
      )}
      <TwoFactorSection userId={userId} hasPassword={me.hasPassword} />
      <hr className="my-6 border-slate-200" />
      <EmailChangeForm current={me.email} hasPassword={me.hasPassword} recentMinutes={RECENT_SIGN_IN_MINUTES} />
      <hr className="my-6 border-slate-200" />
      <SignOutEverywhere />
      <hr className="my-6 border-slate-200" />
      <DeleteAccountSection userId={userId} hasPassword={me.hasPassword} />
      <p className="mt-6 text-center text-sm text-slate-600">
        <TextLink href="/">Back to your workspace</TextLink>
      </p>
    </>
  );
}
