"use client";
import Link from "next/link";
import { buttonClass } from "@/components/ui";

/** The event the quick-create dialog (quick-create.tsx) opens on. */
export const OPEN_QUICK_CREATE = "linkhop:quick-create";

// "New link" on the Links page: opens quick create when its dialog is listening (its ready marker
// is in the page), so a phone without a keyboard gets the dialog too; else, or opened in a new tab,
// the full builder at `href`.
export function NewLinkButton({ href }: { href: string }) {
  return (
    <Link
      href={href}
      className={buttonClass}
      onClick={(e) => {
        if (e.metaKey || e.ctrlKey || e.shiftKey || e.altKey || e.button !== 0) return;
        if (!document.querySelector('[data-quick-create="ready"]')) return;
        e.preventDefault();
        document.dispatchEvent(new Event(OPEN_QUICK_CREATE));
      }}
    >
      New link
    </Link>
  );
}
