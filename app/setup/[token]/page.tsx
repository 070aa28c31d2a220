import type { Metadata } from "next";
import Link from "next/link";
import { currentUserId } from "@/lib/auth";
import { emailOf } from "@/lib/workspaces";
import { secondaryButtonClass, buttonClass } from "@/components/ui";
import { BecomeOperatorButton } from "./form";

export const metadata: Metadata = { title: "Set up this instance" };
export const dynamic = "force-dynamic";

// The one-time setup link printed at the first start (lib/instance/setup-link.ts). Opening it changes
// nothing: the signed-in account presses the button (a POST), so a link previewer or a prefetch
// cannot use it up. Signed out, the visitor signs in or up and comes back here.
export default async function SetupPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const userId = await currentUserId();
  const email = userId ? await emailOf(userId) : null;
  const back = encodeURIComponent(`/setup/${token}`);
  return (
    <main id="main" tabIndex={-1} className="flex min-h-screen items-center justify-center px-4 py-12">
      <div className="w-full max-w-md">
        <div className="mb-8 text-center">
          <span className="text-2xl font-bold tracking-tight text-brand-600">Linkhop</span>
        </div>
        <div className="rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
          <h1 className="text-lg font-semibold">Set up this instance</h1>
          <p className="mt-1 text-sm text-slate-600">
            The instance administrator chooses every workspace&apos;s plan and who may sign up. This link works once, for an hour.
          </p>
          <div className="mt-6">
            {email ? (
              <div className="space-y-3">
                <p className="text-sm text-slate-700">
                  Signed in as <strong>{email}</strong>.
                </p>
                <BecomeOperatorButton token={token} />
              </div>
            ) : (
              <div className="flex gap-3">
                <Link className={`${buttonClass} flex-1 text-center`} href={`/signup?next=${back}`}>
                  Create an account
                </Link>
                <Link className={`${secondaryButtonClass} flex-1 text-center`} href={`/login?next=${back}`}>
                  Sign in
                </Link>
              </div>
            )}
          </div>
        </div>
      </div>
    </main>
  );
}
