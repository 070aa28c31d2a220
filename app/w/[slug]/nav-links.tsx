"use client";
import Link from "next/link";
import { usePathname } from "next/navigation";

export function NavLinks({ slug, canManage }: { slug: string; canManage: boolean }) {
  const pathname = usePathname();
  const items = [
    { href: `/w/${slug}`, label: "Overview", exact: true },
    { href: `/w/${slug}/links`, label: "Links" },
    { href: `/w/${slug}/analytics`, label: "Analytics" },
    { href: `/w/${slug}/domains`, label: "Domains" },
    { href: `/w/${slug}/members`, label: "Members" },
    ...(canManage ? [{ href: `/w/${slug}/developers`, label: "Developers" }] : []),
    { href: `/w/${slug}/settings`, label: "Settings" },
  ];
  return (
    // On a phone the items wrap onto a second line instead of scrolling sideways: every one of them
    // stays on screen and one tap away.
    <nav aria-label="Workspace" className="flex flex-wrap gap-1 px-2 pb-2 md:flex-col md:flex-nowrap md:pb-0">
      {items.map((item) => {
        const active = item.exact ? pathname === item.href : pathname.startsWith(item.href);
        return (
          <Link
            key={item.href}
            href={item.href}
            aria-current={active ? "page" : undefined}
            className={`whitespace-nowrap rounded-md px-2.5 py-1.5 text-sm font-medium md:px-3 md:py-2 ${active ? "bg-brand-50 text-brand-700" : "text-slate-700 hover:bg-slate-100"}`}
          >
            {item.label}
          </Link>
        );
      })}
    </nav>
  );
}
