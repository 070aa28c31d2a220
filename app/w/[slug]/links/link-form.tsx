"use client";
import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useId, useRef, useState } from "react";
import type { ActionResult } from "@/lib/actions/result";
import { useToast } from "@/components/toast";
import { buttonClass, FormError, secondaryButtonClass } from "@/components/ui";
import { createLinkAction, updateLinkAction } from "./actions";
import { CampaignFields, campaignBody, initialCampaignValues, type CampaignValues } from "./campaign-fields";
import type { LinkDetail, LinkFormContext } from "@/lib/links/views";
import { LinkBasicFields } from "./link-basic-fields";
import { LinkPasswordField } from "./link-password-field";
import { LinkScheduleFields } from "./link-schedule-fields";
import { LinkTargetingFields } from "./link-targeting-fields";
import { LinkForwardingFields } from "./link-forwarding-fields";
import { LinkPreviewFields } from "./link-preview-fields";
import { LinkRuleFields } from "./link-rule-fields";
import { LinkVariantFields } from "./link-variant-fields";
import { besideField, bodyOf, initialValues, withSchemes, type LinkSectionProps, type Values } from "./link-values";

// The create and edit form: every field of the API's create body. Fields the plan lacks are
// disabled with an upgrade hint; the server validates with the API's schemas and the messages
// come back beside the fields. One section per file; the values and the body they make: link-values.ts.

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
  // Bumped by every refused submit: after that render, the first marked field gets the focus.
  const [refusals, setRefusals] = useState(0);
  const formRef = useRef<HTMLFormElement>(null);
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
      if (!r.ok) {
        setRefusals((n) => n + 1);
        return;
      }
      if (editing) toast(r.data.changed ? "Link saved" : "Nothing changed");
      else toast(`Short link created: ${r.data.short}`);
      router.push(`/w/${slug}/links/${r.data.id}`);
      router.refresh();
    },
    onError: () => toast("Could not reach the server. Try again.", "error"),
  });
  const result = save.data && !save.data.ok ? save.data : null;
  const serverErrors = Object.fromEntries(Object.entries(result?.fields ?? {}).map(([k, text]) => [k, besideField(k, text)]));
  const errors = { ...serverErrors, ...localErrors };
  const err = (k: string) => errors[k];
  const described = (k: string) => (err(k) ? { "aria-invalid": true as const, "aria-describedby": `${id(k)}-error` } : {});

  // Bring the first problem into view and focus it (the banner alone is easy to miss at the bottom
  // of a long form): the first field marked invalid, else the first message, else the banner.
  useEffect(() => {
    const form = formRef.current;
    if (!refusals || !form) return;
    const target =
      form.querySelector<HTMLElement>('[aria-invalid="true"]') ??
      form.querySelector<HTMLElement>("[data-field-error]") ??
      form.querySelector<HTMLElement>('[role="alert"]');
    if (!target) return;
    target.scrollIntoView({ block: "center" });
    if (!target.matches("input, select, textarea")) target.tabIndex = -1;
    target.focus({ preventScroll: true });
  }, [refusals]);

  function submit(e: React.FormEvent) {
    e.preventDefault();
    const typed = withSchemes(v);
    setV(typed);
    const { body: base, errors: problems } = bodyOf(typed, start, editing, link?.hasPassword ?? false);
    const body = { ...base, ...campaignBody(campaign, campaignStart, typed.url.trim(), editing) };
    setLocalErrors(problems);
    if (Object.keys(problems).length) {
      setRefusals((n) => n + 1);
      return;
    }
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

  const section: LinkSectionProps = { v, set, id, err, described, upgrade };

  return (
    <form ref={formRef} onSubmit={submit} noValidate className="space-y-6">
      <FormError message={topError ?? (Object.keys(localErrors).length ? "Check the highlighted fields." : null)} />
      <LinkBasicFields {...section} editing={editing} ctx={ctx} slug={slug} domainOptions={domainOptions} />

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

      <LinkScheduleFields {...section} ctx={ctx} />

      <LinkPasswordField {...section} ctx={ctx} hasPassword={link?.hasPassword ?? false} />

      <LinkTargetingFields {...section} />

      <LinkRuleFields {...section} ctx={ctx} slug={slug} />

      <LinkVariantFields {...section} ctx={ctx} slug={slug} />

      <LinkForwardingFields {...section} ctx={ctx} slug={slug} />

      <LinkPreviewFields {...section} ctx={ctx} slug={slug} />

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
