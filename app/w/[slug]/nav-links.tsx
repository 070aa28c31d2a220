"use client";
import Link, { useLinkStatus } from "next/link";
import { usePathname } from "next/navigation";

// Moving between pages is a transition: the current page stays until the next one has rendered
// (no skeleton, which React would keep on screen for at least 300 ms), with a dot on the item being
// opened meanwhile.
function Pending() {
  const { pending } = useLinkStatus();
  return (
    <span
      aria-hidden
      className={`ml-2 inline-block h-1.5 w-1.5 rounded-full bg-brand-500 align-middle ${pending ? "animate-pulse" : "invisible"}`}
    />
  );
}

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
            <Pending />
          </Link>
        );
      })}
    </nav>
  );
}
