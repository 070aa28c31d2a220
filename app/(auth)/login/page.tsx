import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { currentUserId, signInPageMessage } from "@/lib/auth";
import { safeNextPath } from "@/lib/auth/next-path";
import { signupSetting } from "@/lib/instance";
import { TextLink } from "@/components/ui";
import { signInAction } from "../actions";
import { AuthForm } from "../auth-form";
import { OAuthButtons } from "../oauth-buttons";

export const metadata: Metadata = { title: "Sign in" };
export const dynamic = "force-dynamic";

type Params = {
  next?: string | string[];
  error?: string | string[];
  code?: string | string[];
  signedOut?: string | string[];
  deleted?: string | string[];
  emailChanged?: string | string[];
};

// Where the Account page's "Sign out everywhere" and "Delete account", and a confirmed change of email, land.
function notice(params: Params): string | null {
  if (params.deleted === "1") return "Your account was deleted.";
  if (params.emailChanged === "1") return "Your email address was changed, and every session was signed out. Sign in with the new address.";
  if (params.signedOut === "everywhere") return "You were signed out on every browser and device.";
  return null;
}

export default async function LoginPage({ searchParams }: { searchParams: Promise<Params> }) {
  const params = await searchParams;
  // A `next` that is not a path of this app is dropped (safeNextPath), never followed.
  const next = safeNextPath(params.next, null) ?? undefined;
  if (await currentUserId()) redirect(next ?? "/");
  // with sign-up closed there is nothing to create here (only the admin CLI's user:create makes accounts)
  const { mode } = await signupSetting();
  return (
    <>
      <h1 className="mb-4 text-lg font-semibold">Sign in</h1>
      {notice(params) && (
        <p role="status" className="mb-4 rounded-md border border-green-200 bg-green-50 px-3 py-2 text-sm text-green-800">
          {notice(params)}
        </p>
      )}
      <AuthForm action={signInAction} mode="signin" next={next} initialError={signInPageMessage(params.error, params.code)} />
      <p className="mt-3 text-right text-sm">
        <TextLink href="/forgot-password">Forgot password?</TextLink>
      </p>
      <OAuthButtons next={next} />
      {mode !== "closed" && (
        <p className="mt-6 text-center text-sm text-slate-600">
          New to Linkhop? <TextLink href={next ? `/signup?next=${encodeURIComponent(next)}` : "/signup"}>Create an account</TextLink>
        </p>
      )}
    </>
  );
}
