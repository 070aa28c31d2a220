import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { currentUserId } from "@/lib/auth";
import { accountOf } from "@/lib/workspaces";
import { TextLink } from "@/components/ui";
import { PasswordForm } from "./password-form";
import { TwoFactorSection } from "./two-factor";

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
      <TwoFactorSection userId={userId} />
      <p className="mt-6 text-center text-sm text-slate-600">
        <TextLink href="/">Back to your workspace</TextLink>
      </p>
    </>
  );
}
