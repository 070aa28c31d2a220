"use client";
import { useId } from "react";
import { inputClass } from "@/components/ui";

// The link.clicked part of the endpoint form: whether to receive it at all (never part of "all
// events": one event per counted click can be a large volume) and whose clicks. lib/webhooks
// click-scope.ts checks the names and says which one it does not know.

export type ClickScopeInput = { folders?: string[]; tags?: string[]; links?: string[] };
type Kind = "all" | "folders" | "tags" | "links";

const KINDS: { kind: Kind; label: string; hint: string }[] = [
  { kind: "all", label: "All links", hint: "" },
  { kind: "folders", label: "Some folders (and their subfolders)", hint: "Folder paths, e.g. marketing/2026" },
  { kind: "tags", label: "Some tags", hint: "Tag names" },
  { kind: "links", label: "Some links", hint: "Link codes" },
];

export function kindOf(scope: ClickScopeInput | undefined): Kind {
  if (scope?.folders?.length) return "folders";
  if (scope?.tags?.length) return "tags";
  if (scope?.links?.length) return "links";
  return "all";
}

const parseList = (text: string) => text.split(",").map((s) => s.trim());

export function ClickScopeFields({
  clicked,
  scope,
  onChange,
}: {
  clicked: boolean;
  scope: ClickScopeInput | undefined;
  onChange: (clicked: boolean, scope: ClickScopeInput | undefined) => void;
}) {
  const id = useId();
  const kind = kindOf(scope);
  const names = kind === "all" ? [] : (scope?.[kind] ?? []);
  return (
    <div className="space-y-2 rounded-md border border-slate-200 p-3">
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" checked={clicked} onChange={(e) => onChange(e.target.checked, scope)} />
        <span>
          <span className="font-mono text-xs">link.clicked</span>: one event per counted click (never bots)
        </span>
      </label>
      <p className="text-xs text-slate-500">
        &quot;All events&quot; does not include link.clicked: it can be a large volume, so it is sent only when selected here.
      </p>
      {clicked && (
        <fieldset className="ml-6 space-y-1">
          <legend className="text-xs font-medium text-slate-700">Clicks on</legend>
          {KINDS.map((k) => (
            <label key={k.kind} className="flex items-center gap-2 text-sm">
              <input
                type="radio"
                name={`${id}-clicks`}
                checked={kind === k.kind}
                onChange={() => onChange(true, k.kind === "all" ? undefined : { [k.kind]: names.length ? names : [""] })}
              />
              {k.label}
            </label>
          ))}
          {kind !== "all" && (
            <input
              aria-label={KINDS.find((k) => k.kind === kind)!.hint}
              placeholder={`${KINDS.find((k) => k.kind === kind)!.hint}, separated by commas`}
              value={names.join(", ")}
              onChange={(e) => onChange(true, { [kind]: parseList(e.target.value) })}
              className={inputClass}
            />
          )}
        </fieldset>
      )}
    </div>
  );
}

/** What the form sends: names trimmed, empty ones dropped (none left: all links). */
export function cleanScope(scope: ClickScopeInput | undefined): ClickScopeInput | undefined {
  const kind = kindOf(scope);
  if (kind === "all") return undefined;
  const names = (scope![kind] ?? []).map((s) => s.trim()).filter(Boolean);
  return names.length ? { [kind]: names } : undefined;
}
