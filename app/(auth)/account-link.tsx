"use client";
import Link from "next/link";
import { usePathname } from "next/navigation";

/** The header's Account link: inside a workspace, the Account page in that workspace's layout; elsewhere /account. */
export function AccountLink() {
  const pathname = usePathname();
  const slug = /^\/w\/([^/]+)/.exec(pathname ?? "")?.[1];
  const href = slug && slug !== "new" ? `/w/${slug}/account` : "/account";
  return (
    <Link href={href} className="text-sm text-slate-600 hover:text-slate-900" aria-current={pathname === href ? "page" : undefined}>
      Account
    </Link>
  );
}
