import Link from "next/link";
import { AccountLinks } from "@/app/(auth)/account-links";

export const dynamic = "force-dynamic";

/** The instance administrator's pages: outside every workspace, so a header of their own. */
export default function InstanceLayout({ children }: { children: React.ReactNode }) {
  return (
    <div className="min-h-screen">
      <header className="border-b border-slate-200 bg-white">
        <nav aria-label="Instance" className="mx-auto flex max-w-6xl flex-wrap items-center gap-4 px-4 py-3 md:px-8">
          <Link href="/" className="text-lg font-bold tracking-tight text-brand-600">
            Linkhop
          </Link>
          <span className="text-sm font-medium text-slate-700">Instance</span>
          <span className="flex-1" />
          <Link href="/" className="text-sm text-slate-600 hover:text-slate-900">
            Your workspaces
          </Link>
          <AccountLinks />
        </nav>
      </header>
      <main className="mx-auto w-full max-w-6xl px-4 py-6 md:px-8 md:py-8">{children}</main>
    </div>
  );
}
