import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { currentUserId } from "@/lib/auth";
import { TextLink } from "@/components/ui";
import { signInAction } from "../actions";
import { AuthForm } from "../auth-form";
import { OAuthButtons } from "../oauth-buttons";

export const metadata: Metadata = { title: "Sign in" };
export const dynamic = "force-dynamic";

export default async function LoginPage({ searchParams }: { searchParams: Promise<{ next?: string }> }) {
  const { next } = await searchParams;
  if (await currentUserId()) redirect(next && next.startsWith("/") ? next : "/");
  return (
    <>
      <h1 className="mb-4 text-lg font-semibold">Sign in</h1>
      <AuthForm action={signInAction} mode="signin" next={next} />
      <OAuthButtons next={next} />
      <p className="mt-6 text-center text-sm text-slate-600">
        New to Linkhop? <TextLink href={next ? `/signup?next=${encodeURIComponent(next)}` : "/signup"}>Create an account</TextLink>
      </p>
    </>
  );
}
