import { twoFactorStatus } from "@/lib/auth/two-factor";
import { ConfirmTwoFactorForm, DisableTwoFactorForm, StartTwoFactorForm } from "./two-factor-forms";

/** The Account page's second-factor section: set up (QR code and secret, confirmed by a code), or on (turn off). */
export async function TwoFactorSection({ userId }: { userId: number }) {
  const status = await twoFactorStatus(userId);
  return (
    <section id="two-factor" aria-labelledby="two-factor-title" className="mt-8 border-t border-slate-200 pt-6">
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
        <div className="mt-1 space-y-4">
          <p className="text-sm text-slate-600">Scan this QR code with your authenticator app, or type the key below into it.</p>
          {/* an SVG made on the server from the otpauth:// address; the key below says the same in text */}
          <div
            role="img"
            aria-label="QR code of the key for your authenticator app"
            className="mx-auto w-48 [&>svg]:h-auto [&>svg]:w-full"
            dangerouslySetInnerHTML={{ __html: status.qrSvg }}
          />
          <div>
            <p className="text-sm font-medium text-slate-700">Key</p>
            <p data-testid="totp-secret" className="mt-1 break-all rounded-md bg-slate-50 px-3 py-2 font-mono text-sm">
              {status.secret.match(/.{1,4}/g)?.join(" ")}
            </p>
            <p className="mt-1 text-xs text-slate-500">Time-based, 6 digits, every 30 seconds.</p>
          </div>
          <ConfirmTwoFactorForm />
          <StartTwoFactorForm label="Start again with a new key" secondary />
        </div>
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
