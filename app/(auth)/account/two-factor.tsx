import { RECENT_SIGN_IN_MINUTES } from "@/lib/auth/reauth";
import { twoFactorStatus } from "@/lib/auth/two-factor";
import { DisableTwoFactorForm, StartTwoFactorForm, TwoFactorEnrolment } from "./two-factor-forms";

/** The Account page's second-factor section: set up (QR code and secret, confirmed by a code), or on (turn off). */
export async function TwoFactorSection({ userId, hasPassword }: { userId: number; hasPassword: boolean }) {
  const status = await twoFactorStatus(userId);
  return (
    <section id="two-factor" aria-labelledby="two-factor-title">
      <h2 id="two-factor-title" className="text-base font-semibold">
        Second factor
      </h2>
      {status.state === "off" && (
        <>
          <p className="mb-4 mt-1 text-sm text-slate-600">
            Ask for a code from an authenticator app (such as 1Password, Google Authenticator or Aegis) at every sign-in, after your
            password or GitHub/Google.
          </p>
          <StartTwoFactorForm label="Set up a second factor" />
        </>
      )}
      {status.state === "pending" && (
        <TwoFactorEnrolment secret={status.secret} qrSvg={status.qrSvg} hasPassword={hasPassword} recentMinutes={RECENT_SIGN_IN_MINUTES} />
      )}
      {status.state === "on" && (
        <div className="mt-1 space-y-4">
          <p className="text-sm text-slate-700">
            <strong>On.</strong> Signing in asks for a code from your authenticator app. {status.recoveryCodesLeft} of 10 recovery codes
            left.
          </p>
          <DisableTwoFactorForm />
        </div>
      )}
    </section>
  );
}
