import type { Metadata } from "next";
import { TextLink } from "@/components/ui";
import { ForgotPasswordForm } from "./form";

export const metadata: Metadata = { title: "Reset your password" };
export const dynamic = "force-dynamic";

// "Forgot password?" on the login page. The answer never tells whether an account has the address.
export default function ForgotPasswordPage() {
  return (
    <>
      <h1 className="text-lg font-semibold">Reset your password</h1>
      <p className="mb-4 mt-1 text-sm text-slate-600">
        Enter the email address of your account. We will mail it a link to set a new password.
      </p>
      <ForgotPasswordForm />
      <p className="mt-6 text-center text-sm text-slate-600">
        Remembered it? <TextLink href="/login">Sign in</TextLink>
      </p>
    </>
  );
}
