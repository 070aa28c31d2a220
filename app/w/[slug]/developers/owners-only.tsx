import { Card, PageHeader } from "@/components/ui";

/** What members (not owners or admins) see on the Developers pages. */
export function OwnersAndAdminsOnly() {
  return (
    <>
      <PageHeader title="Developers" />
      <Card>
        <p role="status" className="text-sm text-slate-700">
          Webhooks are managed by the workspace&apos;s owners and admins only. Ask an owner or admin if you need an endpoint added or
          changed.
        </p>
      </Card>
    </>
  );
}
