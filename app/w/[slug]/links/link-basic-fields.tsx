"use client";
import Link from "next/link";
import { Field, inputClass } from "@/components/ui";
import type { LinkFormContext } from "@/lib/links/views";
import type { LinkSectionProps } from "./link-values";

/** The destination, domain, alias, title, folder, notes and the active switch. */
export function LinkBasicFields({
  v,
  set,
  id,
  err,
  described,
  upgrade,
  editing,
  ctx,
  slug,
  domainOptions,
}: LinkSectionProps & { editing: boolean; ctx: LinkFormContext; slug: string; domainOptions: string[] }) {
  return (
    <section className="space-y-4 rounded-lg border border-slate-200 bg-white p-5 shadow-sm">
      <Field label="Destination URL" htmlFor={id("url")} error={err("url")}>
        <input
          id={id("url")}
          type="url"
          inputMode="url"
          autoFocus={!editing}
          placeholder="https://example.com/a/long/page"
          value={v.url}
          onChange={(e) => set("url", e.target.value)}
          className={inputClass}
          {...described("url")}
        />
      </Field>
      <div className="grid gap-4 sm:grid-cols-2">
        <Field
          label="Domain"
          htmlFor={id("domain")}
          error={err("domain")}
          hint={
            editing ? (
              "A link stays on its domain."
            ) : !ctx.features.domains ? (
              upgrade("Custom domains are not in your plan.")
            ) : ctx.domains.length === 0 ? (
              <Link className="underline" href={`/w/${slug}/domains`}>
                Add a custom domain
              </Link>
            ) : undefined
          }
        >
          <select
            id={id("domain")}
            value={v.domain}
            onChange={(e) => set("domain", e.target.value)}
            disabled={editing || !ctx.features.domains}
            className={inputClass}
            {...described("domain")}
          >
            {domainOptions.map((d) => (
              <option key={d} value={d}>
                {d}
              </option>
            ))}
          </select>
        </Field>
        <Field
          label="Short code (alias)"
          htmlFor={id("alias")}
          error={err("alias")}
          hint={
            ctx.features.aliases
              ? editing
                ? "Changing it breaks the old short URL."
                : "Leave empty for a random 7-character code. Letters, digits, - and _."
              : upgrade("Custom aliases are not in your plan.")
          }
        >
          <div className="flex rounded-md shadow-sm">
            <span className="inline-flex max-w-[45%] items-center truncate rounded-l-md border border-r-0 border-slate-300 bg-slate-50 px-2 text-xs text-slate-500">
              {v.domain}/
            </span>
            <input
              id={id("alias")}
              value={v.alias}
              onChange={(e) => set("alias", e.target.value)}
              disabled={!ctx.features.aliases}
              placeholder={editing ? "" : "summer-sale"}
              maxLength={60}
              autoComplete="off"
              spellCheck={false}
              className={`${inputClass} rounded-l-none`}
              {...described("alias")}
            />
          </div>
        </Field>
      </div>
      <div className="grid gap-4 sm:grid-cols-2">
        <Field label="Title" htmlFor={id("title")} error={err("title")}>
          <input
            id={id("title")}
            value={v.title}
            onChange={(e) => set("title", e.target.value)}
            className={inputClass}
            placeholder="Summer sale landing page"
            {...described("title")}
          />
        </Field>
        <Field
          label="Folder"
          htmlFor={id("folder")}
          error={err("folder")}
          hint='Slash-separated path, such as "marketing/2026". Empty for the top level.'
        >
          <input
            id={id("folder")}
            value={v.folder}
            onChange={(e) => set("folder", e.target.value)}
            list={id("folders")}
            autoComplete="off"
            className={inputClass}
            placeholder="marketing/2026"
            {...described("folder")}
          />
          <datalist id={id("folders")}>
            {ctx.folders.map((f) => (
              <option key={f} value={f} />
            ))}
          </datalist>
        </Field>
      </div>
      <Field label="Notes" htmlFor={id("notes")} error={err("notes")}>
        <textarea
          id={id("notes")}
          rows={2}
          value={v.notes}
          onChange={(e) => set("notes", e.target.value)}
          className={inputClass}
          {...described("notes")}
        />
      </Field>
      <label className="flex items-center gap-2 text-sm">
        <input
          type="checkbox"
          checked={v.active}
          onChange={(e) => set("active", e.target.checked)}
          className="h-4 w-4 rounded border-slate-300"
        />
        <span>
          <span className="font-medium">Active</span>{" "}
          <span className="text-slate-500">(an inactive link sends visitors to the fallback URL, or shows “not found”)</span>
        </span>
      </label>
      {err("active") && <p className="text-xs text-red-600">{err("active")}</p>}
    </section>
  );
}
