import type { Metadata } from "next";
import { listMembers } from "@/lib/members";
import { listInvitations } from "@/lib/members/invitations";
import { PageHeader } from "@/components/ui";
import { workspacePage } from "@/lib/actions/workspace";
import { InvitationsTable } from "./invitations-table";
import { InviteButton } from "./invite-button";
import { MembersTable } from "./members-table";

export const metadata: Metadata = { title: "Members" };

export default async function MembersPage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const { workspace, role, membershipId, can } = await workspacePage(slug);
  const canManage = can("members.manage");
  const [members, invitations] = await Promise.all([
    listMembers(workspace.id),
    canManage ? listInvitations(workspace.id) : Promise.resolve([]),
  ]);
  return (
    <>
      <PageHeader
        title="Members"
        description={
          canManage
            ? "Invite your team and decide who can manage the workspace."
            : "People in this workspace. Owners and admins manage members."
        }
        actions={canManage && <InviteButton slug={slug} isOwner={role === "owner"} />}
      />
      <div className="space-y-6">
        <MembersTable slug={slug} members={members} me={membershipId} myRole={role} />
        {canManage && <InvitationsTable slug={slug} invitations={invitations} />}
      </div>
      <div className="mt-6 rounded-lg border border-slate-200 bg-white p-4 text-xs text-slate-600">
        <p>
          <strong className="font-medium text-slate-800">Roles.</strong> Owners manage everything, including other owners and the plan.
          Admins manage members, domains, API keys and webhooks. Members create and edit links.
        </p>
      </div>
    </>
  );
}
