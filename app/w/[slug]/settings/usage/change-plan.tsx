import Link from "next/link";
import { instanceAdminContacts, isInstanceAdmin } from "@/lib/instance";
import { ownerContacts } from "@/lib/workspaces";
import { Card } from "@/components/ui";

// Where every "Upgrade" and "See plans" of the app leads (this page, #change-plan): what the
// reader can do about the plan. An instance administrator changes it on the Instance page; an
// owner or admin asks the instance administrators; a member asks the workspace's owners.

function Mailtos({ emails }: { emails: string[] }) {
  return (
    <>
      {emails.map((e, i) => (
        <span key={e}>
          {i > 0 && ", "}
          <a href={`mailto:${e}`} className="font-medium text-brand-700 underline">
            {e}
          </a>
        </span>
      ))}
    </>
  );
}

export async function ChangePlan({
  slug,
  workspaceId,
  userId,
  canManage,
}: {
  slug: string;
  workspaceId: number;
  userId: number;
  canManage: boolean;
}) {
  if (await isInstanceAdmin(userId)) {
    return (
      <Card title="Change the plan">
        <p className="text-sm text-slate-700">You administer this Linkhop: change this workspace&apos;s plan on the Instance page.</p>
        <Link
          href={`/instance?q=${encodeURIComponent(slug)}`}
          className="mt-3 inline-block rounded-md bg-brand-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-brand-700"
        >
          Open the Instance page
        </Link>
      </Card>
    );
  }
  if (canManage) {
    const admins = await instanceAdminContacts();
    return (
      <Card title="Change the plan">
        <p className="text-sm text-slate-700">
          Plans are changed by the administrators of this Linkhop.{" "}
          {admins.length > 0 ? (
            <>
              Ask <Mailtos emails={admins} /> to move <strong>{slug}</strong> to the plan you need.
            </>
          ) : (
            <>
              Ask whoever runs this Linkhop to move <strong>{slug}</strong> to the plan you need.
            </>
          )}
        </p>
      </Card>
    );
  }
  const owners = await ownerContacts(workspaceId);
  return (
    <Card title="Change the plan">
      <p className="text-sm text-slate-700">
        Ask your workspace owner{owners.length > 1 ? "s" : ""}
        {owners.length > 0 && (
          <>
            {" "}
            (<Mailtos emails={owners} />)
          </>
        )}
        : they can ask this Linkhop&apos;s administrators for another plan.
      </p>
    </Card>
  );
}
