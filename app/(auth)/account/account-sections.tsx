import { RECENT_SIGN_IN_MINUTES } from "@/lib/auth/reauth";
import { accountOf } from "@/lib/workspaces";
import { PasswordForm } from "./password-form";
import { TwoFactorSection } from "./two-factor";
import { EmailChangeForm } from "./email-form";
import { SignOutEverywhere } from "./sign-out-everywhere";
import { DeleteAccountSection } from "./delete-account-section";

// The Account page's sections, one card each, with a list of them to jump to: shown inside the
// workspace layout (app/w/[slug]/account) and, for an account that can open no workspace, on
// /account itself.

const SECTIONS = [
  { id: "profile", label: "Profile and email" },
  { id: "password", label: "Password" },
  { id: "two-factor", label: "Second factor" },
  { id: "sessions", label: "Sessions" },
  { id: "delete-account", label: "Delete account" },
];

function SectionCard({ id, children, danger }: { id?: string; children: React.ReactNode; danger?: boolean }) {
  return (
    <div id={id} className={`scroll-mt-6 rounded-lg border bg-white p-5 shadow-sm ${danger ? "border-red-200" : "border-slate-200"}`}>
      <div className="max-w-lg">{children}</div>
    </div>
  );
}

export async function AccountSections({ userId, passwordChanged, narrow }: { userId: number; passwordChanged: boolean; narrow?: boolean }) {
  const me = await accountOf(userId);
  return (
    <div className="max-w-4xl">
      <h1 className="text-2xl font-semibold tracking-tight">Your account</h1>
      <p className="mt-1 text-sm text-slate-600">
        Signed in as <strong>{me.email}</strong>.
      </p>
      {passwordChanged && (
        <p role="status" className="mt-4 rounded-md border border-green-200 bg-green-50 px-3 py-2 text-sm text-green-800">
          Password changed. Every other session of your account was signed out.
        </p>
      )}
      <div className={narrow ? "mt-6" : "mt-6 gap-8 lg:grid lg:grid-cols-[11rem_1fr]"}>
        <nav aria-label="Account sections" className={narrow ? "mb-4" : "mb-4 lg:sticky lg:top-6 lg:mb-0 lg:self-start"}>
          <ul className={narrow ? "flex flex-wrap gap-x-4 gap-y-1 text-sm" : "flex flex-wrap gap-x-4 gap-y-1 text-sm lg:flex-col lg:gap-2"}>
            {SECTIONS.map((s) => (
              <li key={s.id}>
                <a href={`#${s.id}`} className="font-medium text-slate-700 hover:text-brand-700 hover:underline">
                  {s.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div className="min-w-0 space-y-6">
          <SectionCard id="profile">
            <EmailChangeForm current={me.email} hasPassword={me.hasPassword} recentMinutes={RECENT_SIGN_IN_MINUTES} />
          </SectionCard>
          <SectionCard id="password">
            <section aria-labelledby="password-title" className="space-y-3">
              <h2 id="password-title" className="text-base font-semibold">
                Password
              </h2>
              {me.hasPassword ? (
                <PasswordForm />
              ) : (
                <p className="text-sm text-slate-700">This account signs in with GitHub or Google; it has no password.</p>
              )}
            </section>
          </SectionCard>
          <SectionCard>
            <TwoFactorSection userId={userId} hasPassword={me.hasPassword} />
          </SectionCard>
          <SectionCard id="sessions">
            <SignOutEverywhere />
          </SectionCard>
          <SectionCard id="delete-account" danger>
            <DeleteAccountSection userId={userId} hasPassword={me.hasPassword} />
          </SectionCard>
        </div>
      </div>
    </div>
  );
}
