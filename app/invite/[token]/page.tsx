import type { Metadata } from "next";
import Link from "next/link";
import { currentUserId } from "@/lib/auth";
import { emailOf } from "@/lib/workspaces";
import { lookupInvitation } from "@/lib/members/invitations";
import { buttonClass, secondaryButtonClass } from "@/components/ui";
import { switchAccountAction } from "./actions";
import { AcceptButton, InviteAuthForm } from "./forms";

export const metadata: Metadata = { title: "Invitation" };
export const dynamic = "force-dynamic";

export default async function InvitePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const inv = await lookupInvitation(token);
  const userId = await currentUserId();
  const myEmail = userId ? await emailOf(userId) : null;

  return (
    <main className="flex min-h-screen items-center justify-center px-4 py-12">
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
                <Link className="font-medium text-brand-600 hover:underline" href={`/w/${inv.workspace.slug}`}>
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
                {myEmail === inv.email ? (
                  <AcceptButton token={token} workspace={inv.workspace.name} />
                ) : myEmail ? (
                  <div className="space-y-4">
                    <p className="rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900">
                      You are signed in as <strong>{myEmail}</strong>. This invitation is for <strong>{inv.email}</strong>; sign in with
                      that address to accept it.
                    </p>
                    <form action={switchAccountAction.bind(null, token)}>
                      <button className={`${buttonClass} w-full`}>Sign out and continue as {inv.email}</button>
                    </form>
                  </div>
                ) : (
                  <InviteAuthForm
                    token={token}
                    email={inv.email}
                    mode={inv.accountUnverified ? "claim" : inv.accountExists ? "signin" : "signup"}
                  />
                )}
              </div>
            </>
          )}
        </div>
      </div>
    </main>
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
