import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { currentUserId } from "@/lib/auth";
import { safeNextPath } from "@/lib/auth/next-path";
import { pendingSignIn } from "@/lib/auth/pending-cookie";
import { pendingTokenLooksCurrent } from "@/lib/auth/two-factor";
import { TextLink } from "@/components/ui";
import { CodeForm } from "./code-form";

export const metadata: Metadata = { title: "Enter your code" };
export const dynamic = "force-dynamic";

type Params = { next?: string | string[]; recovery?: string | string[] };

// The second step of a sign-in with a second factor: the password (or GitHub/Google) was right and
// left a pending sign-in in a cookie (lib/auth/two-factor.ts); without one, back to the password.
export default async function SecondFactorPage({ searchParams }: { searchParams: Promise<Params> }) {
  const params = await searchParams;
  const next = safeNextPath(params.next, null) ?? undefined;
  if (await currentUserId()) redirect(next ?? "/");
  const login = next ? `/login?next=${encodeURIComponent(next)}` : "/login";
  // Only the token's form and expiry: a decoy (a wrong password on a locked account) must get the same page.
  if (!pendingTokenLooksCurrent(await pendingSignIn())) redirect(login);
  const recovery = params.recovery === "1";
  const self = (withRecovery: boolean) => {
    const q = new URLSearchParams();
    if (next) q.set("next", next);
    if (withRecovery) q.set("recovery", "1");
    const s = q.toString();
    return s ? `/login/two-factor?${s}` : "/login/two-factor";
  };
  return (
    <>
      <h1 className="text-lg font-semibold">Enter your code</h1>
      <p className="mb-4 mt-1 text-sm text-slate-600">
        {recovery
          ? "Enter one of the recovery codes you saved when you set up your second factor. Each works once."
          : "Open your authenticator app and enter the 6-digit code for Linkhop."}
      </p>
      <CodeForm key={recovery ? "recovery" : "code"} next={next} recovery={recovery} />
      <p className="mt-6 text-center text-sm text-slate-600">
        {recovery ? (
          <TextLink href={self(false)}>Use a code from your app</TextLink>
        ) : (
          <TextLink href={self(true)}>Lost your phone? Use a recovery code</TextLink>
        )}
      </p>
      <p className="mt-2 text-center text-sm text-slate-600">
        <TextLink href={login}>Start over</TextLink>
      </p>
    </>
  );
}
