"use client";
import Link from "next/link";
import { Field, inputClass } from "@/components/ui";
import type { LinkFormContext } from "@/lib/links/views";
import { LinkCodeField } from "./link-code-field";
import type { LinkSectionProps } from "./link-values";

// The link's first fields, as parts: the link form shows them all in one section (LinkBasicFields);
// the quick-create dialog shows the destination, domain and code at once and the details under
// "More options".

type BasicProps = LinkSectionProps & { editing: boolean; ctx: LinkFormContext; slug: string; domainOptions: string[]; ownCode?: string };

/** The destination, domain, alias, title, folder, notes and the active switch. */
export function LinkBasicFields(props: BasicProps) {
  return (
    <section className="space-y-4 rounded-lg border border-slate-200 bg-white p-5 shadow-sm">
      <LinkDestinationField {...props} />
      <div className="grid gap-4 sm:grid-cols-[minmax(0,2fr)_minmax(0,3fr)]">
        <LinkDomainField {...props} />
        <LinkCodeField {...props} />
      </div>
      <LinkDetailFields {...props} />
    </section>
  );
}

export function LinkDestinationField({ v, set, id, err, described, editing, autoFocus = !editing }: BasicProps & { autoFocus?: boolean }) {
  return (
    <Field label="Destination URL" htmlFor={id("url")} error={err("url")}>
      <input
        id={id("url")}
        type="url"
        inputMode="url"
        autoFocus={autoFocus}
        placeholder="https://example.com/a/long/page"
        value={v.url}
        onChange={(e) => set("url", e.target.value)}
        className={inputClass}
        {...described("url")}
      />
    </Field>
  );
}

export function LinkDomainField({ v, set, id, err, described, upgrade, editing, ctx, slug, domainOptions }: BasicProps) {
  return (
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
  );
}

export function LinkDetailFields({ v, set, id, err, described, ctx }: BasicProps) {
  return (
    <>
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
    </>
  );
}
