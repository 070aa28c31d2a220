import type { Metadata } from "next";
import Link from "next/link";
import { currentUserId } from "@/lib/auth";
import { emailOf } from "@/lib/workspaces";
import { unverifiedEmailOf } from "@/lib/auth/verification";
import { lookupInvitation } from "@/lib/members/invitations";
import { buttonClass, secondaryButtonClass } from "@/components/ui";
import { VerifyEmailNotice } from "@/app/(auth)/account/verify-notice";
import { switchAccountAction } from "./actions";
import { AcceptButton, InviteAuthForm, type InviteAuthMode } from "./forms";

export const metadata: Metadata = { title: "Invitation" };
export const dynamic = "force-dynamic";

// What a signed-out visitor sees does not depend on whether the invited address has an account
// (the link's holder may be the inviter); `?mode=signin` switches the form, with or without JavaScript.
export default async function InvitePage({
  params,
  searchParams,
}: {
  params: Promise<{ token: string }>;
  searchParams: Promise<{ mode?: string | string[] }>;
}) {
  const { token } = await params;
  const mode: InviteAuthMode = (await searchParams).mode === "signin" ? "signin" : "signup";
  const inv = await lookupInvitation(token);
  const userId = await currentUserId();
  const myEmail = userId ? await emailOf(userId) : null;
  const unverified =
    userId && myEmail === (inv.state === "invalid" ? null : inv.email) ? (await unverifiedEmailOf(userId)) !== null : false;

  return (
    <main id="main" tabIndex={-1} className="flex min-h-screen items-center justify-center px-4 py-12">
      <div className="w-full max-w-md">
        <div className="mb-8 text-center">
          <span className="text-2xl font-bold tracking-tight text-brand-600">Linkhop</span>
        </div>
        <div className="rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
          {inv.state === "invalid" ? (
            <Problem title="This invitation link is not valid">
              Check that you copied the whole link from the email, or ask for a new invitation.
            </Problem>
          ) : inv.state === "expired" ? (
            <Problem title="This invitation has expired">
              Invitations work for 7 days. Ask an owner or admin of {inv.workspace.name} to invite you again.
            </Problem>
          ) : inv.state === "accepted" ? (
            <Problem title="This invitation was already used">
              {myEmail ? (
                <Link
                  className="font-medium text-brand-600 underline underline-offset-2 hover:text-brand-700"
                  href={`/w/${inv.workspace.slug}`}
                >
                  Open {inv.workspace.name}
                </Link>
              ) : (
                "Sign in to open the workspace."
              )}
            </Problem>
          ) : (
            <>
              <h1 className="text-lg font-semibold">Join {inv.workspace.name}</h1>
              <p className="mt-1 text-sm text-slate-600">
                You were invited as {inv.role === "admin" || inv.role === "owner" ? `an ${inv.role}` : "a member"} with{" "}
                <strong>{inv.email}</strong>.
              </p>
              <div className="mt-6">
                {myEmail === inv.email && unverified ? (
                  <VerifyEmailNotice email={inv.email} next={`/invite/${token}`}>
                    Confirm your email address to join: open the link we mailed to <strong>{inv.email}</strong>, then accept here.
                  </VerifyEmailNotice>
                ) : myEmail === inv.email ? (
                  <AcceptButton token={token} workspace={inv.workspace.name} />
                ) : myEmail ? (
                  <div className="space-y-4">
                    <p className="rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900">
                      You are signed in as <strong>{myEmail}</strong>. This invitation is for <strong>{inv.email}</strong>; sign in with
                      that address to accept it.
                    </p>
                    <form action={switchAccountAction}>
                      <input type="hidden" name="token" value={token} />
                      <button className={`${buttonClass} w-full`}>Sign out and continue as {inv.email}</button>
                    </form>
                  </div>
                ) : (
                  <div className="space-y-5">
                    <ModeTabs token={token} mode={mode} />
                    <InviteAuthForm key={mode} token={token} email={inv.email} mode={mode} />
                  </div>
                )}
              </div>
            </>
          )}
        </div>
      </div>
    </main>
  );
}

function ModeTabs({ token, mode }: { token: string; mode: InviteAuthMode }) {
  const tab = (value: InviteAuthMode, label: string) => (
    <Link
      href={value === "signup" ? `/invite/${token}` : `/invite/${token}?mode=signin`}
      replace
      aria-current={mode === value ? "page" : undefined}
      className={`flex-1 rounded-md px-3 py-1.5 text-center text-sm font-medium ${
        mode === value ? "bg-white text-slate-900 shadow-sm" : "text-slate-600 hover:text-slate-900"
      }`}
    >
      {label}
    </Link>
  );
  return (
    <nav aria-label="Account" className="flex gap-1 rounded-lg bg-slate-100 p-1">
      {tab("signup", "New to Linkhop")}
      {tab("signin", "I have an account")}
    </nav>
  );
}

function Problem({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <div className="text-center">
      <h1 className="text-lg font-semibold">{title}</h1>
      <div className="mt-2 text-sm text-slate-600">{children}</div>
      <Link href="/" className={`${secondaryButtonClass} mt-6`}>
        Go to Linkhop
      </Link>
    </div>
  );
}
