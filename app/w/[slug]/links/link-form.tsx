"use client";
import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import type { ActionResult } from "@/lib/actions/result";
import { useToast } from "@/components/toast";
import { buttonClass, Field, FormError, inputClass, secondaryButtonClass } from "@/components/ui";
import { createLinkAction, updateLinkAction } from "./actions";
import { CampaignFields, campaignBody, initialCampaignValues, type CampaignValues } from "./campaign-fields";
import type { LinkDetail, LinkFormContext } from "@/lib/links/views";

// The create and edit form: every field of the API's create body. Fields the plan lacks are
// disabled with an upgrade hint; the server validates with the API's schemas and the messages
// come back beside the fields. Times are entered in the browser's time zone and sent as unix seconds.

type GeoRow = { key: number; country: string; url: string };
type Values = {
  url: string;
  domain: string;
  alias: string;
  title: string;
  notes: string;
  folder: string;
  active: boolean;
  startsOn: string;
  expiresOn: string;
  maxClicks: string;
  fallbackUrl: string;
  password: string;
  removePassword: boolean;
  ios: string;
  android: string;
  geo: GeoRow[];
};

let geoKey = 0;

function toLocalInput(unix: number | null): string {
  if (unix === null) return "";
  const d = new Date(unix * 1000);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

function fromLocalInput(v: string): number | null | "invalid" {
  if (!v) return null;
  const t = new Date(v).getTime();
  return Number.isNaN(t) ? "invalid" : Math.floor(t / 1000);
}

function initialValues(link: LinkDetail | undefined, defaultHost: string, folder: string): Values {
  return {
    url: link?.url ?? "",
    domain: link?.domain ?? defaultHost,
    alias: link?.code ?? "",
    title: link?.title ?? "",
    notes: link?.notes ?? "",
    folder: link?.folder ?? folder,
    active: link?.active ?? true,
    startsOn: toLocalInput(link?.startsOn ?? null),
    expiresOn: toLocalInput(link?.expiresOn ?? null),
    maxClicks: link?.maxClicks ? String(link.maxClicks) : "",
    fallbackUrl: link?.fallbackUrl ?? "",
    password: "",
    removePassword: false,
    ios: link?.targeting?.ios ?? "",
    android: link?.targeting?.android ?? "",
    geo: Object.entries(link?.targeting?.geo ?? {}).map(([country, url]) => ({ key: ++geoKey, country, url })),
  };
}

function targetingOf(v: Values) {
  const geo = Object.fromEntries(
    v.geo.filter((g) => g.country.trim() || g.url.trim()).map((g) => [g.country.trim().toUpperCase(), g.url.trim()]),
  );
  const t = {
    ...(v.ios.trim() ? { ios: v.ios.trim() } : {}),
    ...(v.android.trim() ? { android: v.android.trim() } : {}),
    ...(Object.keys(geo).length ? { geo } : {}),
  };
  return Object.keys(t).length ? t : null;
}

/** The request body: every filled field for a create; only what changed for an edit. */
function bodyOf(
  v: Values,
  start: Values,
  editing: boolean,
  hasPassword: boolean,
): { body: Record<string, unknown>; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  const num = (s: string) => (s.trim() === "" ? null : Number(s));
  const startsOn = fromLocalInput(v.startsOn);
  const expiresOn = fromLocalInput(v.expiresOn);
  if (startsOn === "invalid") errors.startsOn = "Enter a date and time.";
  if (expiresOn === "invalid") errors.expiresOn = "Enter a date and time.";
  const maxClicks = num(v.maxClicks);
  if (maxClicks !== null && !Number.isInteger(maxClicks)) errors.maxClicks = "Enter a whole number, or leave it empty.";
  const full: Record<string, unknown> = {
    url: v.url.trim(),
    domain: v.domain,
    alias: v.alias.trim(),
    title: v.title,
    notes: v.notes.trim() === "" ? null : v.notes,
    folder: v.folder,
    active: v.active,
    startsOn,
    expiresOn,
    maxClicks,
    fallbackUrl: v.fallbackUrl.trim() === "" ? null : v.fallbackUrl.trim(),
    targeting: targetingOf(v),
  };
  if (!editing) {
    const body: Record<string, unknown> = {};
    for (const [k, val] of Object.entries(full)) {
      if (val === null || val === "" || (k === "active" && val === true)) continue;
      body[k] = val;
    }
    if (v.password) body.password = v.password;
    return { body, errors };
  }
  const before = bodyOf(start, start, false, false).body;
  const body: Record<string, unknown> = {};
  for (const [k, val] of Object.entries(full)) {
    if (k === "domain") continue; // a link's domain cannot change
    const was =
      k === "active" ? start.active : (before[k] ?? (k === "title" || k === "folder" || k === "url" || k === "alias" ? "" : null));
    if (JSON.stringify(val) !== JSON.stringify(was)) body[k] = val;
  }
  if (body.alias === "") errors.alias = "A link needs a code; enter one.";
  if (v.password) body.password = v.password;
  else if (v.removePassword && hasPassword) body.password = null;
  return { body, errors };
}

export function LinkForm({
  slug,
  ctx,
  link,
  initialFolder = "",
}: {
  slug: string;
  ctx: LinkFormContext;
  link?: LinkDetail;
  initialFolder?: string;
}) {
  const editing = !!link;
  const [start] = useState(() => initialValues(link, ctx.defaultHost, initialFolder));
  const [v, setV] = useState<Values>(start);
  const [campaignStart] = useState(() => initialCampaignValues(link));
  const [campaign, setCampaign] = useState<CampaignValues>(campaignStart);
  const [localErrors, setLocalErrors] = useState<Record<string, string>>({});
  const router = useRouter();
  const toast = useToast();
  const ids = useId();
  const id = (name: string) => `${ids}-${name}`;
  const set = <K extends keyof Values>(k: K, value: Values[K]) => setV((prev) => ({ ...prev, [k]: value }));

  const save = useMutation({
    mutationFn: async (body: Record<string, unknown>): Promise<ActionResult<{ id: number; short?: string; changed?: boolean }>> =>
      editing
        ? updateLinkAction(slug, { id: link!.id, patch: body })
        : createLinkAction(slug, body as Parameters<typeof createLinkAction>[1]),
    onSuccess: (r) => {
      if (!r.ok) return;
      if (editing) toast(r.data.changed ? "Link saved" : "Nothing changed");
      else toast(`Short link created: ${r.data.short}`);
      router.push(`/w/${slug}/links/${r.data.id}`);
      router.refresh();
    },
    onError: () => toast("Could not reach the server. Try again.", "error"),
  });
  const result = save.data && !save.data.ok ? save.data : null;
  const errors = { ...(result?.fields ?? {}), ...localErrors };
  const err = (k: string) => errors[k];
  const described = (k: string) => (err(k) ? { "aria-invalid": true as const, "aria-describedby": `${id(k)}-error` } : {});

  function submit(e: React.FormEvent) {
    e.preventDefault();
    const { body: base, errors: problems } = bodyOf(v, start, editing, link?.hasPassword ?? false);
    const body = { ...base, ...campaignBody(campaign, campaignStart, v.url.trim(), editing) };
    setLocalErrors(problems);
    if (Object.keys(problems).length) return;
    if (editing && Object.keys(body).length === 0) {
      toast("Nothing changed");
      router.push(`/w/${slug}/links/${link!.id}`);
      return;
    }
    save.mutate(body);
  }

  const upgrade = (what: string) => (
    <span className="text-amber-700">
      {what}{" "}
      <Link href={`/w/${slug}/settings/usage`} className="font-medium underline">
        Upgrade
      </Link>
    </span>
  );
  const domainOptions = [ctx.defaultHost, ...ctx.domains.filter((d) => d !== ctx.defaultHost)];
  if (editing && !domainOptions.includes(v.domain)) domainOptions.push(v.domain);
  // Messages placed beside a field are not repeated on top, except the validation summary.
  const topError = !result
    ? null
    : !result.fields || Object.keys(result.fields).length === 0 || result.code === "validation"
      ? result.error
      : null;

  return (
    <form onSubmit={submit} noValidate className="space-y-6">
      <FormError message={topError ?? (Object.keys(localErrors).length ? "Check the highlighted fields." : null)} />
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

      <CampaignFields
        id={id}
        url={v.url}
        values={campaign}
        start={campaignStart}
        onChange={setCampaign}
        templates={ctx.utmTemplates}
        tagNames={ctx.tags}
        errors={{ tags: err("tags"), utm: err("utm") }}
      />

      <section className="space-y-4 rounded-lg border border-slate-200 bg-white p-5 shadow-sm">
        <h2 className="text-sm font-semibold">Schedule and limits</h2>
        <div className="grid gap-4 sm:grid-cols-2">
          <Field
            label="Starts"
            htmlFor={id("startsOn")}
            error={err("startsOn")}
            hint={
              ctx.features.expiry
                ? "Before this time the link is not active. Your time zone."
                : upgrade("Start and expiry times are not in your plan.")
            }
          >
            <input
              id={id("startsOn")}
              type="datetime-local"
              value={v.startsOn}
              onChange={(e) => set("startsOn", e.target.value)}
              disabled={!ctx.features.expiry}
              className={inputClass}
              {...described("startsOn")}
            />
          </Field>
          <Field
            label="Expires"
            htmlFor={id("expiresOn")}
            error={err("expiresOn")}
            hint={ctx.features.expiry ? "After this time visitors get the fallback URL or “gone”." : upgrade("Expiry is not in your plan.")}
          >
            <input
              id={id("expiresOn")}
              type="datetime-local"
              value={v.expiresOn}
              onChange={(e) => set("expiresOn", e.target.value)}
              disabled={!ctx.features.expiry}
              className={inputClass}
              {...described("expiresOn")}
            />
          </Field>
          <Field label="Maximum clicks" htmlFor={id("maxClicks")} error={err("maxClicks")} hint="Empty for no limit.">
            <input
              id={id("maxClicks")}
              type="number"
              min={1}
              step={1}
              inputMode="numeric"
              value={v.maxClicks}
              onChange={(e) => set("maxClicks", e.target.value)}
              className={inputClass}
              {...described("maxClicks")}
            />
          </Field>
          <Field
            label="Fallback URL"
            htmlFor={id("fallbackUrl")}
            error={err("fallbackUrl")}
            hint="Where visitors go when the link is inactive, not started, expired or used up."
          >
            <input
              id={id("fallbackUrl")}
              type="url"
              inputMode="url"
              value={v.fallbackUrl}
              onChange={(e) => set("fallbackUrl", e.target.value)}
              className={inputClass}
              placeholder="https://example.com"
              {...described("fallbackUrl")}
            />
          </Field>
        </div>
      </section>

      <section className="space-y-4 rounded-lg border border-slate-200 bg-white p-5 shadow-sm">
        <h2 className="text-sm font-semibold">Password</h2>
        <Field
          label={link?.hasPassword ? "New password" : "Password"}
          htmlFor={id("password")}
          error={err("password")}
          hint={
            !ctx.features.passwords
              ? upgrade("Password-protected links are not in your plan.")
              : link?.hasPassword
                ? "This link has a password. Leave empty to keep it."
                : "Visitors must enter it before they are redirected. Stored hashed."
          }
        >
          <input
            id={id("password")}
            type="password"
            autoComplete="new-password"
            value={v.password}
            onChange={(e) => set("password", e.target.value)}
            disabled={!ctx.features.passwords || v.removePassword}
            className={inputClass}
            {...described("password")}
          />
        </Field>
        {link?.hasPassword && (
          <label className="flex items-center gap-2 text-sm">
            <input
              type="checkbox"
              checked={v.removePassword}
              onChange={(e) => set("removePassword", e.target.checked)}
              className="h-4 w-4 rounded border-slate-300"
            />
            Remove the password
          </label>
        )}
      </section>

      <section className="space-y-4 rounded-lg border border-slate-200 bg-white p-5 shadow-sm">
        <div>
          <h2 className="text-sm font-semibold">Targeting</h2>
          <p className="text-xs text-slate-500">
            Send iPhone, Android or visitors from a country somewhere else. Everyone else goes to the destination URL.
          </p>
        </div>
        {err("targeting") && (
          <p id={`${id("targeting")}-error`} className="text-xs text-red-600">
            {err("targeting")}
          </p>
        )}
        <div className="grid gap-4 sm:grid-cols-2">
          <Field label="iOS URL" htmlFor={id("ios")}>
            <input
              id={id("ios")}
              type="url"
              inputMode="url"
              value={v.ios}
              onChange={(e) => set("ios", e.target.value)}
              className={inputClass}
              placeholder="https://apps.apple.com/..."
            />
          </Field>
          <Field label="Android URL" htmlFor={id("android")}>
            <input
              id={id("android")}
              type="url"
              inputMode="url"
              value={v.android}
              onChange={(e) => set("android", e.target.value)}
              className={inputClass}
              placeholder="https://play.google.com/..."
            />
          </Field>
        </div>
        <fieldset className="space-y-2">
          <legend className="text-sm font-medium text-slate-700">By country</legend>
          {v.geo.map((g, i) => (
            <div key={g.key} className="flex flex-wrap items-center gap-2">
              <input
                aria-label={`Country code ${i + 1}`}
                value={g.country}
                maxLength={2}
                placeholder="DE"
                onChange={(e) =>
                  set(
                    "geo",
                    v.geo.map((x) => (x.key === g.key ? { ...x, country: e.target.value.toUpperCase() } : x)),
                  )
                }
                className={`${inputClass} w-16 uppercase`}
              />
              <input
                aria-label={`URL for country ${i + 1}`}
                type="url"
                value={g.url}
                placeholder="https://example.de"
                onChange={(e) =>
                  set(
                    "geo",
                    v.geo.map((x) => (x.key === g.key ? { ...x, url: e.target.value } : x)),
                  )
                }
                className={`${inputClass} min-w-0 flex-1`}
              />
              <button
                type="button"
                className={secondaryButtonClass}
                onClick={() =>
                  set(
                    "geo",
                    v.geo.filter((x) => x.key !== g.key),
                  )
                }
                aria-label={`Remove country ${i + 1}`}
              >
                Remove
              </button>
            </div>
          ))}
          <button
            type="button"
            className={secondaryButtonClass}
            onClick={() => set("geo", [...v.geo, { key: ++geoKey, country: "", url: "" }])}
          >
            Add country
          </button>
          <p className="text-xs text-slate-500">Two-letter ISO country codes (US, DE, JP).</p>
        </fieldset>
      </section>

      <div className="sticky bottom-0 -mx-4 flex justify-end gap-2 border-t border-slate-200 bg-slate-50/95 px-4 py-3 md:static md:mx-0 md:border-0 md:bg-transparent md:p-0">
        <Link href={editing ? `/w/${slug}/links/${link!.id}` : `/w/${slug}/links`} className={secondaryButtonClass}>
          Cancel
        </Link>
        <button type="submit" className={buttonClass} disabled={save.isPending}>
          {save.isPending ? "Saving…" : editing ? "Save changes" : "Create link"}
        </button>
      </div>
    </form>
  );
}
