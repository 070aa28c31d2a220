import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { currentUserId, signInPageMessage } from "@/lib/auth";
import { safeNextPath } from "@/lib/auth/next-path";
import { TextLink } from "@/components/ui";
import { signInAction } from "../actions";
import { AuthForm } from "../auth-form";
import { OAuthButtons } from "../oauth-buttons";

export const metadata: Metadata = { title: "Sign in" };
export const dynamic = "force-dynamic";

type Params = { next?: string | string[]; error?: string | string[]; code?: string | string[] };

export default async function LoginPage({ searchParams }: { searchParams: Promise<Params> }) {
  const params = await searchParams;
  // A `next` that is not a path of this app is dropped (safeNextPath), never followed.
  const next = safeNextPath(params.next, null) ?? undefined;
  if (await currentUserId()) redirect(next ?? "/");
  return (
    <>
      <h1 className="mb-4 text-lg font-semibold">Sign in</h1>
      <AuthForm action={signInAction} mode="signin" next={next} initialError={signInPageMessage(params.error, params.code)} />
      <p className="mt-3 text-right text-sm">
        <TextLink href="/forgot-password">Forgot password?</TextLink>
      </p>
      <OAuthButtons next={next} />
      <p className="mt-6 text-center text-sm text-slate-600">
        New to Linkhop? <TextLink href={next ? `/signup?next=${encodeURIComponent(next)}` : "/signup"}>Create an account</TextLink>
      </p>
    </>
  );
}
