"use client";
import { useEffect, useState } from "react";
import { Field, inputClass, secondaryButtonClass } from "@/components/ui";
import type { LinkFormContext } from "@/lib/links/views";
import type { LinkSectionProps } from "./link-values";
import { codeAvailabilityAction, randomCodeAction } from "./quick-create-actions";

// The short code: the domain prefix shown whole beside the field, a "Random" button, and whether
// the code is free on the chosen domain, asked of the server while typing (debounced; the rule is
// lib/links/code-availability.ts). Used by the link form and the quick-create dialog.

type Status = "idle" | "checking" | "free" | "taken" | "invalid" | "unknown";

const DEBOUNCE_MS = 250;

/** free / taken / invalid of `code` on `domain`, asked DEBOUNCE_MS after the last change; idle when `code` is empty or not asked. */
export function useCodeAvailability(slug: string, domain: string, code: string, ask: boolean) {
  const [answer, setAnswer] = useState<{ key: string; status: Status; message?: string }>({ key: "", status: "idle" });
  const key = `${domain}\u0000${code}`;
  const wanted = ask && code.trim() !== "";
  useEffect(() => {
    if (!wanted) return;
    let current = true;
    const timer = setTimeout(async () => {
      try {
        const r = await codeAvailabilityAction(slug, { domain, code: code.trim() });
        if (current) setAnswer(r.ok ? { key, ...r.data } : { key, status: "unknown", message: r.error });
      } catch {
        if (current) setAnswer({ key, status: "unknown" });
      }
    }, DEBOUNCE_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [slug, domain, code, key, wanted]);
  if (!wanted) return { status: "idle" as Status };
  return answer.key === key ? answer : { status: "checking" as Status };
}

const STATUS_TEXT: Record<Status, string> = {
  idle: "",
  checking: "Checking…",
  free: "Available",
  taken: "Taken on this domain: choose another code.",
  invalid: "Not a valid code.",
  unknown: "Could not check right now; the code is checked again on save.",
};
const STATUS_CLASS: Record<Status, string> = {
  idle: "",
  checking: "text-slate-600",
  free: "text-green-700",
  taken: "text-red-700",
  invalid: "text-red-700",
  unknown: "text-slate-600",
};

export function LinkCodeField({
  v,
  set,
  id,
  err,
  described,
  upgrade,
  ctx,
  slug,
  editing,
  ownCode,
}: LinkSectionProps & { ctx: LinkFormContext; slug: string; editing: boolean; ownCode?: string }) {
  const aliases = ctx.features.aliases;
  // an edit that keeps the link's own code is not asked about (it is "taken", by this link)
  const availability = useCodeAvailability(slug, v.domain, v.alias, aliases && v.alias.trim() !== (ownCode ?? ""));
  const [drawing, setDrawing] = useState(false);
  const statusId = `${id("alias")}-status`;
  const describedBy = [described("alias")["aria-describedby"], availability.status !== "idle" ? statusId : null].filter(Boolean).join(" ");

  async function random() {
    setDrawing(true);
    try {
      const r = await randomCodeAction(slug, { domain: v.domain });
      if (r.ok) set("alias", r.data.code);
    } finally {
      setDrawing(false);
    }
  }

  const message =
    availability.status === "invalid" && "message" in availability && availability.message
      ? `Not a valid code: ${availability.message}.`
      : STATUS_TEXT[availability.status];

  return (
    <Field
      label="Short code (alias)"
      htmlFor={id("alias")}
      error={err("alias")}
      hint={
        aliases
          ? editing
            ? "Changing it breaks the old short URL."
            : "Leave empty for a random 7-character code. Letters, digits, - and _."
          : upgrade("Custom aliases are not in your plan.")
      }
    >
      <div className="flex gap-2">
        <div className="flex min-w-0 flex-1 rounded-md shadow-sm">
          {/* the whole host: a clipped "localhost:340" says nothing */}
          <span
            data-testid="short-prefix"
            className="inline-flex shrink-0 items-center whitespace-nowrap rounded-l-md border border-r-0 border-slate-300 bg-slate-50 px-2 text-xs text-slate-600"
          >
            {v.domain}/
          </span>
          <input
            id={id("alias")}
            value={v.alias}
            onChange={(e) => set("alias", e.target.value)}
            disabled={!aliases}
            placeholder={editing ? "" : aliases ? "summer-sale" : "random"}
            maxLength={60}
            autoComplete="off"
            spellCheck={false}
            className={`${inputClass} min-w-[5rem] rounded-l-none`}
            aria-invalid={
              described("alias")["aria-invalid"] ?? (availability.status === "taken" || availability.status === "invalid" || undefined)
            }
            aria-describedby={describedBy || undefined}
          />
        </div>
        {aliases && (
          <button type="button" className={`${secondaryButtonClass} shrink-0`} onClick={random} disabled={drawing}>
            Random
          </button>
        )}
      </div>
      <p
        id={statusId}
        aria-live="polite"
        data-testid="code-availability"
        data-status={availability.status}
        className={`text-xs ${STATUS_CLASS[availability.status]}`}
      >
        {message}
      </p>
    </Field>
  );
}
