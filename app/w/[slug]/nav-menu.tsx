"use client";
import { usePathname } from "next/navigation";
import { useEffect, useId, useState } from "react";

// On a phone the workspace switcher, the navigation and the account links fold behind a Menu
// button beside the logo, so a page's content starts near the top of the screen; from md up they
// are always shown (the sidebar). Opening another page folds the menu again.
export function NavMenu({ top, children }: { top: React.ReactNode; children: React.ReactNode }) {
  const [open, setOpen] = useState(false);
  const pathname = usePathname();
  const panel = useId();
  useEffect(() => setOpen(false), [pathname]);
  return (
    <>
      <div className="flex items-center justify-between gap-2 px-4 py-2.5 md:p-4">
        {top}
        <button
          type="button"
          aria-expanded={open}
          aria-controls={panel}
          onClick={() => setOpen((o) => !o)}
          className="inline-flex items-center gap-1.5 rounded-md border border-slate-300 px-2.5 py-1.5 text-sm font-medium text-slate-700 md:hidden"
        >
          <svg aria-hidden className="h-4 w-4" viewBox="0 0 20 20" fill="none" stroke="currentColor" strokeWidth="2">
            {open ? <path d="M5 5l10 10M15 5L5 15" /> : <path d="M3 5h14M3 10h14M3 15h14" />}
          </svg>
          Menu
        </button>
      </div>
      <div id={panel} className={`${open ? "block" : "hidden"} md:block`}>
        {children}
      </div>
    </>
  );
}
