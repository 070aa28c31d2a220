"use client";
import { useRouter } from "next/navigation";
import { useState } from "react";
import type { ActionResult } from "@/lib/actions/result";
import { TagChip } from "@/components/tag-chip";
import { useToast } from "@/components/toast";
import { buttonClass, Card, Field, FormError, inputClass, secondaryButtonClass } from "@/components/ui";
import { createTagAction, createUtmTemplateAction, deleteTagAction, deleteUtmTemplateAction, updateTagAction } from "./actions";

// The two lists of the campaign settings page. Every change goes through a server action and the
// page re-renders from the database.

type TagRow = { id: number; name: string; color: string; links: number };
type TemplateRow = { id: number; name: string; utm: Partial<Record<"source" | "medium" | "campaign" | "term" | "content", string>> };

function useRun() {
  const router = useRouter();
  const toast = useToast();
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  async function run<T>(call: () => Promise<ActionResult<T>>, done: string): Promise<boolean> {
    setPending(true);
    setError(null);
    const r: ActionResult<T> = await call().catch(() => ({ ok: false as const, error: "The server could not be reached." }));
    setPending(false);
    if (!r.ok) {
      const beside = Object.values(r.fields ?? {});
      setError(beside.length ? beside.join(" ") : r.error);
      return false;
    }
    toast(done);
    router.refresh();
    return true;
  }
  return { run, error, pending };
}

export function TagsManager({ slug, tags, colors }: { slug: string; tags: TagRow[]; colors: string[] }) {
  const [name, setName] = useState("");
  const [color, setColor] = useState("gray");
  const { run, error, pending } = useRun();
  return (
    <Card title="Tags">
      <form
        aria-label="New tag"
        className="flex flex-wrap items-end gap-2"
        onSubmit={async (e) => {
          e.preventDefault();
          if (await run(() => createTagAction(slug, { name, color }), `Tag “${name.trim()}” created`)) setName("");
        }}
      >
        <Field label="Name" htmlFor="new-tag-name">
          <input id="new-tag-name" value={name} onChange={(e) => setName(e.target.value)} maxLength={50} className={inputClass} />
        </Field>
        <Field label="Colour" htmlFor="new-tag-color">
          <select id="new-tag-color" value={color} onChange={(e) => setColor(e.target.value)} className={inputClass}>
            {colors.map((c) => (
              <option key={c}>{c}</option>
            ))}
          </select>
        </Field>
        <button type="submit" className={buttonClass} disabled={pending}>
          Add tag
        </button>
      </form>
      <FormError message={error} />
      {tags.length === 0 ? (
        <p className="mt-3 text-sm text-slate-600">No tags yet. Tags you type on a link are created here too.</p>
      ) : (
        <ul aria-label="Tags" className="mt-4 divide-y divide-slate-100">
          {tags.map((t) => (
            <li key={t.id} className="flex flex-wrap items-center gap-3 py-2 text-sm">
              <TagChip name={t.name} color={t.color} />
              <span className="text-slate-500">
                {t.links} link{t.links === 1 ? "" : "s"}
              </span>
              <span className="ml-auto flex gap-2">
                <select
                  aria-label={`Colour of ${t.name}`}
                  value={t.color}
                  onChange={(e) => run(() => updateTagAction(slug, { id: t.id, input: { color: e.target.value } }), "Colour changed")}
                  className={`${inputClass} !w-28 py-1`}
                >
                  {colors.map((c) => (
                    <option key={c}>{c}</option>
                  ))}
                </select>
                <button
                  type="button"
                  className={secondaryButtonClass}
                  onClick={() => {
                    const next = window.prompt(`Rename “${t.name}” to`, t.name);
                    if (next && next.trim() !== t.name)
                      run(() => updateTagAction(slug, { id: t.id, input: { name: next } }), "Tag renamed");
                  }}
                >
                  Rename
                </button>
                <button
                  type="button"
                  className={`${secondaryButtonClass} hover:text-red-700`}
                  onClick={() => {
                    if (
                      window.confirm(
                        `Delete the tag “${t.name}”? It is removed from ${t.links} link${t.links === 1 ? "" : "s"}; the links stay.`,
                      )
                    )
                      run(() => deleteTagAction(slug, { id: t.id }), "Tag deleted");
                  }}
                >
                  Delete
                </button>
              </span>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}

const FIELDS = ["source", "medium", "campaign", "term", "content"] as const;

export function UtmTemplatesManager({ slug, templates }: { slug: string; templates: TemplateRow[] }) {
  const empty = { name: "", source: "", medium: "", campaign: "", term: "", content: "" };
  const [v, setV] = useState(empty);
  const { run, error, pending } = useRun();
  return (
    <Card title="UTM templates">
      <form
        aria-label="New UTM template"
        className="space-y-3"
        onSubmit={async (e) => {
          e.preventDefault();
          const utm = Object.fromEntries(FIELDS.filter((f) => v[f].trim()).map((f) => [f, v[f]]));
          if (await run(() => createUtmTemplateAction(slug, { name: v.name, utm }), `Template “${v.name.trim()}” saved`)) setV(empty);
        }}
      >
        <Field label="Name" htmlFor="utm-template-name">
          <input
            id="utm-template-name"
            value={v.name}
            onChange={(e) => setV({ ...v, name: e.target.value })}
            maxLength={60}
            className={inputClass}
            placeholder="Newsletter"
          />
        </Field>
        <div className="grid gap-3 sm:grid-cols-3">
          {FIELDS.map((f) => (
            <Field key={f} label={`UTM ${f}`} htmlFor={`utm-template-${f}`}>
              <input
                id={`utm-template-${f}`}
                value={v[f]}
                onChange={(e) => setV({ ...v, [f]: e.target.value })}
                maxLength={200}
                className={inputClass}
              />
            </Field>
          ))}
        </div>
        <button type="submit" className={buttonClass} disabled={pending}>
          Save template
        </button>
      </form>
      <FormError message={error} />
      {templates.length > 0 && (
        <ul aria-label="UTM templates" className="mt-4 divide-y divide-slate-100">
          {templates.map((t) => (
            <li key={t.id} className="flex flex-wrap items-center gap-3 py-2 text-sm">
              <span className="font-medium">{t.name}</span>
              <span className="font-mono text-xs text-slate-600">
                {FIELDS.filter((f) => t.utm[f])
                  .map((f) => `utm_${f}=${t.utm[f]}`)
                  .join(" · ")}
              </span>
              <button
                type="button"
                className={`${secondaryButtonClass} ml-auto hover:text-red-700`}
                onClick={() => run(() => deleteUtmTemplateAction(slug, { id: t.id }), "Template deleted")}
              >
                Delete
              </button>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
