import { redirect } from "next/navigation";
import { currentUserId } from "@/lib/auth";
import { NewWorkspaceForm } from "./form";

export const dynamic = "force-dynamic";

export default async function NewWorkspacePage() {
  if (!(await currentUserId())) redirect("/login?next=/w/new");
  return (
    <main id="main" tabIndex={-1} className="mx-auto max-w-md px-4 py-16">
      <h1 className="mb-6 text-2xl font-semibold">New workspace</h1>
      <div className="rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
        <NewWorkspaceForm />
      </div>
    </main>
  );
}
