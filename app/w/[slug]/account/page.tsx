import type { Metadata } from "next";
import { workspacePage } from "@/lib/actions/workspace";
import { AccountSections } from "@/app/(auth)/account/account-sections";

export const metadata: Metadata = { title: "Your account" };
export const dynamic = "force-dynamic";

// The Account page inside the workspace it was opened from (the header's Account link): the
// account is the same in every workspace; only the surrounding navigation differs.
export default async function WorkspaceAccountPage({
  params,
  searchParams,
}: {
  params: Promise<{ slug: string }>;
  searchParams: Promise<{ changed?: string | string[] }>;
}) {
  const { slug } = await params;
  const { userId } = await workspacePage(slug);
  return <AccountSections userId={userId} passwordChanged={(await searchParams).changed === "1"} />;
}
