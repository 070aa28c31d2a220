import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { currentUserId } from "@/lib/auth";
import { hasSecondFactor } from "@/lib/auth/two-factor";
import { membershipOf } from "@/lib/workspaces";
import { buttonClass, TextLink } from "@/components/ui";

export const metadata: Metadata = { title: "Second factor required" };
export const dynamic = "force-dynamic";

// Where workspacePage sends a member of a workspace that requires a second factor they lack. It
// names the workspace only to its members; with a second factor, it leads back into the workspace.
export default async function SecondFactorRequiredPage({ searchParams }: { searchParams: Promise<{ workspace?: string | string[] }> }) {
  const userId = await currentUserId();
  if (!userId) redirect("/login");
  const slug = (await searchParams).workspace;
  const m = typeof slug === "string" ? await membershipOf(userId, slug) : null;
  if (m && (await hasSecondFactor(userId))) redirect(`/w/${m.workspace.slug}`);
  return (
    <>
      <h1 className="text-lg font-semibold">Set up a second factor</h1>
      <p className="mt-2 text-sm text-slate-700">
        {m ? <strong>{m.workspace.name}</strong> : "This workspace"} requires every member to sign in with a second factor: a code from an
        authenticator app. Until you set one up, you cannot open its pages, links or settings.
      </p>
      <ol className="mt-4 list-decimal space-y-1 pl-5 text-sm text-slate-700">
        <li>Open your Account page and choose “Set up a second factor”.</li>
        <li>Scan the QR code with your authenticator app and enter the code it shows.</li>
        <li>Save your recovery codes, then come back to the workspace.</li>
      </ol>
      <a href="/account#two-factor" className={`${buttonClass} mt-6 w-full`}>
        Go to your Account page
      </a>
      {m && (
        <p className="mt-4 text-center text-sm text-slate-600">
          <TextLink href={`/w/${m.workspace.slug}`}>I have set it up: open {m.workspace.name}</TextLink>
        </p>
      )}
    </>
  );
}
