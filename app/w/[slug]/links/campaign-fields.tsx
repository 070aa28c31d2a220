"use client";
import { mergeUtm, utmOf, UTM_FIELDS, type Utm, type UtmField } from "@/lib/links/utm";
import { TagCombobox, type TagOption } from "@/components/tag-combobox";
import { Field, inputClass } from "@/components/ui";

// The link form's campaign section: tags (the tag combobox) and the UTM builder (five fields,
// a template picker, and the final URL as the service will store it). The body sends `tags` and
// `utm` as the API takes them; the server merges utm into url. The quick-create dialog shows the
// tags on its own (TagsField) and this section without them.

export type CampaignValues = { tags: string[]; utm: Record<UtmField, string> };
export type UtmTemplateOption = { id: number; name: string; utm: Utm };

const LABELS: Record<UtmField, string> = { source: "Source", medium: "Medium", campaign: "Campaign", term: "Term", content: "Content" };

export function initialCampaignValues(link: { url: string; tags: string[] } | undefined): CampaignValues {
  const current = link ? utmOf(link.url) : {};
  return {
    tags: link?.tags ?? [],
    utm: Object.fromEntries(UTM_FIELDS.map((f) => [f, current[f] ?? ""])) as Record<UtmField, string>,
  };
}

/** The UTM fields the user changed from what the form started with ("" removes that parameter). */
function utmChanges(v: CampaignValues, start: CampaignValues): Utm {
  const out: Utm = {};
  for (const f of UTM_FIELDS) if (v.utm[f].trim() !== start.utm[f].trim()) out[f] = v.utm[f].trim();
  return out;
}

/** The campaign part of the request body: tags when they differ from the start (always on create), utm when it changes the URL. */
export function campaignBody(v: CampaignValues, start: CampaignValues, url: string, editing: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const tags = v.tags;
  if (editing ? JSON.stringify(tags) !== JSON.stringify(start.tags) : tags.length > 0) body.tags = tags;
  const utm = utmChanges(v, start);
  if (Object.keys(utm).length && url) body.utm = utm;
  return body;
}

/** The tags of a link: the coloured combobox, with its label and error. */
export function TagsField({
  id,
  values,
  onChange,
  tagOptions,
  error,
}: {
  id: (name: string) => string;
  values: CampaignValues;
  onChange: (v: CampaignValues) => void;
  tagOptions: TagOption[];
  error?: string;
}) {
  return (
    <Field label="Tags" htmlFor={id("tags")} error={error} hint="Pick tags or type a new name; new names become tags of the workspace.">
      <TagCombobox
        id={id("tags")}
        value={values.tags}
        onChange={(tags) => onChange({ ...values, tags })}
        options={tagOptions}
        invalid={!!error}
        describedBy={error ? `${id("tags")}-error` : undefined}
      />
    </Field>
  );
}

/** What the campaign fields show and change: built once by the link editor (use-link-editor.ts) for the builder and the dialog. */
export type CampaignFieldsProps = {
  id: (name: string) => string;
  url: string;
  values: CampaignValues;
  start: CampaignValues;
  onChange: (v: CampaignValues) => void;
  templates: UtmTemplateOption[];
  tagOptions: TagOption[];
  errors: { tags?: string; utm?: string };
  /** false where the tags are shown elsewhere (the quick-create dialog) */
  withTags?: boolean;
};

export function CampaignFields({ id, url, values, start, onChange, templates, tagOptions, errors, withTags = true }: CampaignFieldsProps) {
  const setUtm = (f: UtmField, value: string) => onChange({ ...values, utm: { ...values.utm, [f]: value } });
  const applyTemplate = (tid: string) => {
    const t = templates.find((x) => String(x.id) === tid);
    if (t) onChange({ ...values, utm: Object.fromEntries(UTM_FIELDS.map((f) => [f, t.utm[f] ?? ""])) as Record<UtmField, string> });
  };
  let preview = "";
  try {
    if (url.trim()) preview = mergeUtm(url.trim(), utmChanges(values, start));
  } catch {
    preview = "";
  }
  return (
    <section className="space-y-4 rounded-lg border border-slate-200 bg-white p-5 shadow-sm" aria-label="Campaign">
      <h2 className="text-sm font-semibold">Campaign</h2>
      {withTags && <TagsField id={id} values={values} onChange={onChange} tagOptions={tagOptions} error={errors.tags} />}
      <div className="flex flex-wrap items-end justify-between gap-2">
        <h3 className="text-sm font-medium text-slate-700">UTM parameters</h3>
        {templates.length > 0 && (
          <label className="flex items-center gap-2 text-sm">
            <span>Apply template</span>
            <select
              aria-label="UTM template"
              defaultValue=""
              onChange={(e) => applyTemplate(e.target.value)}
              className={`${inputClass} !w-48`}
            >
              <option value="" disabled>
                Choose…
              </option>
              {templates.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.name}
                </option>
              ))}
            </select>
          </label>
        )}
      </div>
      <div className="grid gap-4 sm:grid-cols-3">
        {UTM_FIELDS.map((f) => (
          <Field key={f} label={`UTM ${LABELS[f].toLowerCase()}`} htmlFor={id(`utm-${f}`)}>
            <input
              id={id(`utm-${f}`)}
              value={values.utm[f]}
              onChange={(e) => setUtm(f, e.target.value)}
              maxLength={200}
              autoComplete="off"
              className={inputClass}
            />
          </Field>
        ))}
      </div>
      {errors.utm && <p className="text-xs text-red-600">{errors.utm}</p>}
      {preview && preview !== url.trim() && (
        <p className="break-all text-xs text-slate-600">
          Final URL:{" "}
          <span data-testid="final-url" className="font-mono text-slate-900">
            {preview}
          </span>
        </p>
      )}
    </section>
  );
}
