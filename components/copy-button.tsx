"use client";
import { useState } from "react";
import { useToast } from "./toast";

/** Puts `value` on the clipboard; false when the browser allowed neither way. */
export async function copyText(value: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(value);
    return true;
  } catch {
    const ta = document.createElement("textarea");
    ta.value = value;
    ta.setAttribute("readonly", "");
    ta.style.position = "fixed";
    ta.style.opacity = "0";
    document.body.appendChild(ta);
    ta.select();
    let ok = false;
    try {
      ok = document.execCommand("copy");
    } catch {
      ok = false;
    }
    ta.remove();
    return ok;
  }
}

/** Copies `value` to the clipboard; falls back to selecting a hidden textarea on plain http. */
export function CopyButton({
  value,
  label = "Copy",
  what,
  className,
  iconOnly,
}: {
  value: string;
  label?: string;
  what?: string;
  className?: string;
  iconOnly?: boolean;
}) {
  const [copied, setCopied] = useState(false);
  const toast = useToast();
  async function copy() {
    const ok = await copyText(value);
    if (ok) {
      setCopied(true);
      setTimeout(() => setCopied(false), 1500);
      toast(`${what ?? "Text"} copied`);
    } else toast("Could not copy; select the text and copy it by hand.", "error");
  }
  return (
    <button
      type="button"
      onClick={copy}
      aria-label={what ? `Copy ${what.toLowerCase()}` : label}
      title={iconOnly ? (what ? `Copy ${what.toLowerCase()}` : label) : undefined}
      className={
        className ??
        "inline-flex shrink-0 items-center gap-1 rounded-md border border-slate-300 bg-white px-2 py-1 text-xs font-medium text-slate-700 hover:bg-slate-50"
      }
    >
      <svg aria-hidden width="14" height="14" viewBox="0 0 20 20" fill="none" stroke="currentColor" strokeWidth="1.8">
        {copied ? <path d="M4 10l4 4 8-8" /> : <path d="M7 7V4h9v9h-3M4 7h9v9H4z" />}
      </svg>
      {iconOnly ? <span className="sr-only">{copied ? "Copied" : label}</span> : copied ? "Copied" : label}
    </button>
  );
}

/** A monospace value with a copy button beside it (DNS records, keys, URLs). */
export function CopyField({ label, value, what }: { label: string; value: string; what?: string }) {
  return (
    <div className="min-w-0">
      <p className="text-xs font-medium uppercase tracking-wide text-slate-500">{label}</p>
      <div className="mt-1 flex items-center gap-2">
        <code className="min-w-0 flex-1 break-all rounded bg-slate-100 px-2 py-1 font-mono text-xs text-slate-800">{value}</code>
        <CopyButton value={value} what={what ?? label} />
      </div>
    </div>
  );
}
