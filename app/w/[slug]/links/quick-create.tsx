import { Suspense } from "react";
import { workspacePage } from "@/lib/actions/workspace";
import { linkFormContext } from "@/lib/links/views";
import { QuickCreateDialog } from "./quick-create-dialog";

// Quick create on the Links page: what the dialog may offer is read beside the list, not before
// it (Suspense: the list never waits for it). Members who may not create links get nothing.

export function QuickCreate({ slug }: { slug: string }) {
  return (
    <Suspense fallback={null}>
      <QuickCreateLoader slug={slug} />
    </Suspense>
  );
}

async function QuickCreateLoader({ slug }: { slug: string }) {
  const page = await workspacePage(slug);
  if (!page.can("links.write")) return null;
  const ctx = await linkFormContext(page.workspace);
  return <QuickCreateDialog slug={slug} ctx={ctx} />;
}
