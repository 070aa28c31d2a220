import { redirect } from "next/navigation";
import { currentUserId } from "@/lib/auth";
import { workspacesOf } from "@/lib/workspaces";

export const dynamic = "force-dynamic";

export default async function Home() {
  const userId = await currentUserId();
  if (!userId) redirect("/login");
  const workspaces = await workspacesOf(userId);
  if (workspaces.length === 0) redirect("/w/new");
  redirect(`/w/${workspaces[0].slug}`);
}
