"use client";
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import type { DomainView } from "@/lib/domains";
import type { ActionFailure } from "@/lib/actions/result";
import { Dialog } from "@/components/dialog";
import { useToast } from "@/components/toast";
import { buttonClass, Field, FormError, inputClass, secondaryButtonClass } from "@/components/ui";
import { runAction as run } from "@/components/run-action";
import { updateDomainSettingsAction } from "./actions";

// A domain's app links (the two /.well-known files) and its root and not-found redirects: shown on
// the domain's card, edited by owners and admins in a dialog (lib/domains/app-links.ts).

type Values = { appleAppSiteAssociation: string; assetLinks: string; rootUrl: string; notFoundUrl: string };

const jsonText = (v: unknown) => (v === null || v === undefined ? "" : JSON.stringify(v, null, 2));

function valuesOf(d: DomainView): Values {
  return {
    appleAppSiteAssociation: jsonText(d.appleAppSiteAssociation),
    assetLinks: jsonText(d.assetLinks),
    rootUrl: d.rootUrl ?? "",
    notFoundUrl: d.notFoundUrl ?? "",
  };
}

export function DomainSettings({ slug, domain, canManage }: { slug: string; domain: DomainView; canManage: boolean }) {
  const [open, setOpen] = useState(false);
  const [values, setValues] = useState<Values>(() => valuesOf(domain));
  const router = useRouter();
  const toast = useToast();
  const save = useMutation({
    mutationFn: (v: Values) => run(updateDomainSettingsAction(slug, { host: domain.host, ...v })),
    onSuccess: () => {
      toast(`Saved the settings of ${domain.host}`);
      setOpen(false);
      router.refresh();
    },
  });
  const failure = (save.error as (Error & { result?: ActionFailure }) | null)?.result;
  const fieldError = (name: keyof Values) => failure?.fields?.[name];
  const set = (name: keyof Values) => (e: React.ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) =>
    setValues((v) => ({ ...v, [name]: e.target.value }));
  const id = (name: string) => `domain-${domain.id}-${name}`;
  const input = (name: keyof Values) => ({
    id: id(name),
    name,
    value: values[name],
    onChange: set(name),
    "aria-invalid": !!fieldError(name),
    "aria-describedby": fieldError(name) ? `${id(name)}-error` : undefined,
  });

  return (
    <div className="mt-4 border-t border-slate-100 pt-4" data-testid="domain-settings">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p className="text-sm font-medium">App links and redirects</p>
        {canManage && (
          <button
            type="button"
            className={secondaryButtonClass}
            onClick={() => {
              setValues(valuesOf(domain));
              save.reset();
              setOpen(true);
            }}
            aria-label={`Edit app links and redirects of ${domain.host}`}
          >
            Edit
          </button>
        )}
      </div>
      <dl className="mt-2 grid gap-x-4 gap-y-1 text-xs sm:grid-cols-[auto_1fr]">
        <dt className="text-slate-500">Root (/)</dt>
        <dd className="break-all font-mono" data-testid="domain-root-url">
          {domain.rootUrl ?? "not set: the 404 page"}
        </dd>
        <dt className="text-slate-500">Unknown codes</dt>
        <dd className="break-all font-mono" data-testid="domain-not-found-url">
          {domain.notFoundUrl ?? "not set: the 404 page"}
        </dd>
        <dt className="text-slate-500">apple-app-site-association</dt>
        <dd data-testid="domain-aasa">{domain.appleAppSiteAssociation ? "set" : "not set"}</dd>
        <dt className="text-slate-500">assetlinks.json</dt>
        <dd data-testid="domain-asset-links">{domain.assetLinks ? "set" : "not set"}</dd>
      </dl>
      {!domain.verified && <p className="mt-1 text-xs text-slate-500">Served once the domain is verified.</p>}

      <Dialog
        open={open}
        onClose={() => setOpen(false)}
        wide
        title={`App links and redirects of ${domain.host}`}
        description="Leave a field empty to clear it. The files are served under /.well-known/ on this domain; each is at most 64 KB."
      >
        <form
          noValidate
          className="space-y-4"
          onSubmit={(e) => {
            e.preventDefault();
            save.mutate(values);
          }}
        >
          <FormError message={save.error?.message} />
          <Field label="Root URL" htmlFor={id("rootUrl")} error={fieldError("rootUrl")} hint="Where a visit to / on this domain goes.">
            <input {...input("rootUrl")} className={inputClass} placeholder="https://example.com" autoComplete="off" />
          </Field>
          <Field
            label="Not-found URL"
            htmlFor={id("notFoundUrl")}
            error={fieldError("notFoundUrl")}
            hint="Where a visit to an unknown code goes, instead of the 404 page."
          >
            <input {...input("notFoundUrl")} className={inputClass} placeholder="https://example.com/not-found" autoComplete="off" />
          </Field>
          <Field
            label="apple-app-site-association (JSON object)"
            htmlFor={id("appleAppSiteAssociation")}
            error={fieldError("appleAppSiteAssociation")}
          >
            <textarea {...input("appleAppSiteAssociation")} rows={6} spellCheck={false} className={`${inputClass} font-mono`} />
          </Field>
          <Field label="assetlinks.json (JSON array)" htmlFor={id("assetLinks")} error={fieldError("assetLinks")}>
            <textarea {...input("assetLinks")} rows={6} spellCheck={false} className={`${inputClass} font-mono`} />
          </Field>
          <div className="flex justify-end gap-2">
            <button type="button" className={secondaryButtonClass} onClick={() => setOpen(false)}>
              Cancel
            </button>
            <button className={buttonClass} disabled={save.isPending}>
              {save.isPending ? "Saving…" : "Save"}
            </button>
          </div>
        </form>
      </Dialog>
    </div>
  );
}
