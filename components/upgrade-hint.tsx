import Link from "next/link";

/** The strip above a page whose feature the workspace's plan lacks. */
export function UpgradeBanner({ slug, children }: { slug: string; children: React.ReactNode }) {
  return (
    <div className="mb-6 flex flex-wrap items-center justify-between gap-3 rounded-lg border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900">
      <div>{children}</div>
      <Link
        href={`/w/${slug}/settings/usage`}
        className="rounded-md bg-amber-700 px-3 py-1.5 text-xs font-semibold text-white hover:bg-amber-800"
      >
        See plans
      </Link>
    </div>
  );
}
