import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { currentUserId } from "@/lib/auth";
import { safeNextPath } from "@/lib/auth/next-path";
import { CLOSED_MESSAGE, INVITE_ONLY_MESSAGE, signupSetting } from "@/lib/instance";
import { TextLink } from "@/components/ui";
import { signUpAction } from "../actions";
import { AuthForm } from "../auth-form";
import { OAuthButtons } from "../oauth-buttons";

export const metadata: Metadata = { title: "Create account" };
export const dynamic = "force-dynamic";

export default async function SignUpPage({ searchParams }: { searchParams: Promise<{ next?: string | string[] }> }) {
  // A `next` that is not a path of this app is dropped (safeNextPath), never followed.
  const next = safeNextPath((await searchParams).next, null) ?? undefined;
  if (await currentUserId()) redirect("/");
  // Said up front; sign-up itself refuses on the server whatever this page shows (lib/instance/signup.ts).
  const { mode } = await signupSetting();
  return (
    <>
      <h1 className="mb-4 text-lg font-semibold">Create your account</h1>
      {mode !== "open" && (
        <p
          role="status"
          data-testid="signup-mode"
          className="mb-4 rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900"
        >
          {mode === "closed" ? CLOSED_MESSAGE : INVITE_ONLY_MESSAGE}
        </p>
      )}
      {mode !== "closed" && (
        <>
          <AuthForm action={signUpAction} mode="signup" next={next} />
          <OAuthButtons next={next} />
        </>
      )}
      <p className="mt-6 text-center text-sm text-slate-600">
        Already have an account? <TextLink href={next ? `/login?next=${encodeURIComponent(next)}` : "/login"}>Sign in</TextLink>
      </p>
    </>
  );
}
