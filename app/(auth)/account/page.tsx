import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { currentUserId } from "@/lib/auth";
import { firstOpenWorkspaceSlug } from "@/lib/workspaces";
import { TextLink } from "@/components/ui";
import { AccountSections } from "./account-sections";

export const metadata: Metadata = { title: "Your account" };
export const dynamic = "force-dynamic";

// /account opens the Account page inside the first workspace the account can open
// (app/w/[slug]/account), keeping ?changed=1 (a fragment such as #two-factor survives the redirect
// in the browser). An account that can open none (its only workspaces require a second factor it
// has not set up yet) gets the same sections here.
export default async function AccountPage({ searchParams }: { searchParams: Promise<{ changed?: string | string[] }> }) {
  const userId = await currentUserId();
  if (!userId) redirect("/login?next=/account");
  const changed = (await searchParams).changed === "1";
  const slug = await firstOpenWorkspaceSlug(userId);
  if (slug) redirect(`/w/${encodeURIComponent(slug)}/account${changed ? "?changed=1" : ""}`);
  return (
    <>
      <AccountSections userId={userId} passwordChanged={changed} narrow />
      <p className="mt-6 text-center text-sm text-slate-600">
        <TextLink href="/">Back to your workspace</TextLink>
      </p>
    </>
  );
}
