"use client";
import { useState } from "react";
import { useToast } from "@/components/toast";
import { buttonClass, inputClass, secondaryButtonClass } from "@/components/ui";
import { retagLinksAction } from "./campaign-actions";

// The bar shown while links are selected: add a tag to all of them, or remove one; `children` are
// the other bulk actions (bulk-actions.tsx).
export function BulkTagBar({
  slug,
  ids,
  tags,
  onDone,
  onClear,
  children,
}: {
  slug: string;
  ids: number[];
  tags: { name: string }[];
  onDone: () => void;
  onClear: () => void;
  children?: React.ReactNode;
}) {
  const [name, setName] = useState("");
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const toast = useToast();

  async function run(op: "add" | "remove") {
    const tag = name.trim();
    if (!tag) return setError("Type a tag name.");
    setPending(true);
    setError(null);
    const r = await retagLinksAction(slug, { ids, [op]: [tag] }).catch(() => ({
      ok: false as const,
      error: "The server could not be reached.",
    }));
    setPending(false);
    if (!r.ok) return setError(r.error);
    toast(
      `${op === "add" ? "Tagged" : "Untagged"} ${r.data.changed} link${r.data.changed === 1 ? "" : "s"} ${op === "add" ? "with" : "from"} “${tag}”`,
    );
    setName("");
    onDone();
  }

  return (
    <div
      role="region"
      aria-label="Selected links"
      className="flex flex-wrap items-center gap-2 rounded-lg border border-brand-200 bg-brand-50 px-3 py-2 text-sm"
    >
      <span className="font-medium text-slate-800">{ids.length} selected</span>
      <input
        aria-label="Tag name"
        list="bulk-tag-names"
        placeholder="Tag name"
        value={name}
        onChange={(e) => setName(e.target.value)}
        className={`${inputClass} w-44`}
        maxLength={50}
      />
      <datalist id="bulk-tag-names">
        {tags.map((t) => (
          <option key={t.name} value={t.name} />
        ))}
      </datalist>
      <button type="button" className={buttonClass} disabled={pending} onClick={() => run("add")}>
        Add tag
      </button>
      <button type="button" className={secondaryButtonClass} disabled={pending} onClick={() => run("remove")}>
        Remove tag
      </button>
      {children}
      <button type="button" className="text-slate-600 underline" onClick={onClear}>
        Clear selection
      </button>
      {error && (
        <p role="alert" className="w-full text-red-700">
          {error}
        </p>
      )}
    </div>
  );
}
