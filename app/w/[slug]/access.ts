import { notFound, redirect } from "next/navigation";
import { cache } from "react";
import { currentUserId } from "@/lib/auth";
import { atLeast, membershipOf, type Role } from "@/lib/workspaces";

/**
 * Every workspace page and action starts here: signed in, a member (else 404, so a workspace's
 * existence is not revealed), and at least `min` when the page needs it.
 */
export async function requireMember(slug: string, min: Role = "member") {
  const m = await memberOf(slug);
  return { ...m, allowed: atLeast(m.role, min) };
}

// One lookup per request and workspace, however many layouts and pages ask.
const memberOf = cache(async (slug: string) => {
  const userId = await currentUserId();
  if (!userId) redirect(`/login?next=${encodeURIComponent(`/w/${slug}`)}`);
  const m = await membershipOf(userId, slug);
  if (!m) notFound();
  return { userId, role: m.role, membershipId: m.membershipId, workspace: m.workspace, canManage: atLeast(m.role, "admin") };
});
