import type { Metadata } from "next";
import { BackToLinks } from "./back-to-links";

// A page of the workspace that does not exist (a deleted link, a mistyped address): shown inside
// the workspace's layout, so the navigation stays. A workspace the visitor is not a member of is
// refused by the layout itself, with the app's plain not-found page.
export const metadata: Metadata = { title: "Page not found" };

export default function WorkspaceNotFound() {
  return (
    <div className="py-16 text-center">
      <h1 className="text-2xl font-semibold">Page not found</h1>
      <p className="mt-2 text-sm text-slate-600">It does not exist, or you do not have access to it.</p>
      <p className="mt-4 text-sm">
        <BackToLinks />
      </p>
    </div>
  );
}
