"use client";
import { useMutation } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState } from "react";
import type { ActionResult } from "@/lib/actions/result";
import { useToast } from "@/components/toast";
import type { LinkDetail, LinkFormContext } from "@/lib/links/views";
import { createLinkAction, updateLinkAction } from "./actions";
import { campaignBody, initialCampaignValues, type CampaignFieldsProps, type CampaignValues } from "./campaign-fields";
import { besideField, bodyOf, initialValues, withSchemes, type LinkSectionProps, type Values } from "./link-values";

// The state of a link being made or edited, shared by the link builder (link-form.tsx) and the
// quick-create dialog (quick-create-form.tsx): the values, the errors beside the fields (the
// form's own checks, then the server's), and the one save, through the same server actions as
// every create and edit (actions.ts -> lib/links).

export type Saved = { id: number; short?: string; changed?: boolean };

export function useLinkEditor({
  slug,
  ctx,
  link,
  initialFolder = "",
  initialUrl = "",
  upgrade,
  onSaved,
  onNothingChanged,
}: {
  slug: string;
  ctx: LinkFormContext;
  link?: LinkDetail;
  initialFolder?: string;
  initialUrl?: string;
  upgrade: (what: string) => React.ReactNode;
  onSaved: (saved: Saved) => void;
  onNothingChanged?: () => void;
}) {
  const editing = !!link;
  const [start] = useState(() => initialValues(link, ctx.defaultHost, initialFolder));
  const [v, setV] = useState<Values>(() => (initialUrl ? { ...start, url: initialUrl } : start));
  const [campaignStart] = useState(() => initialCampaignValues(link));
  const [campaign, setCampaign] = useState<CampaignValues>(campaignStart);
  const [localErrors, setLocalErrors] = useState<Record<string, string>>({});
  // Bumped by every refused submit: after that render, the first marked field gets the focus.
  const [refusals, setRefusals] = useState(0);
  const formRef = useRef<HTMLFormElement>(null);
  const toast = useToast();
  const ids = useId();
  const id = (name: string) => `${ids}-${name}`;
  const set = <K extends keyof Values>(k: K, value: Values[K]) => setV((prev) => ({ ...prev, [k]: value }));

  const save = useMutation({
    mutationFn: async (body: Record<string, unknown>): Promise<ActionResult<Saved>> =>
      editing
        ? updateLinkAction(slug, { id: link!.id, patch: body })
        : createLinkAction(slug, body as Parameters<typeof createLinkAction>[1]),
    onSuccess: (r) => {
      if (!r.ok) setRefusals((n) => n + 1);
      else onSaved(r.data);
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
      onNothingChanged?.();
      return;
    }
    save.mutate(body);
  }

  const domainOptions = [ctx.defaultHost, ...ctx.domains.filter((d) => d !== ctx.defaultHost)];
  if (editing && !domainOptions.includes(v.domain)) domainOptions.push(v.domain);
  // Messages placed beside a field are not repeated on top, except the validation summary.
  const topError = !result
    ? null
    : !result.fields || Object.keys(result.fields).length === 0 || result.code === "validation"
      ? result.error
      : null;

  const section: LinkSectionProps = { v, set, id, err, described, upgrade };
  const campaignFields: CampaignFieldsProps = {
    id,
    url: v.url,
    values: campaign,
    start: campaignStart,
    onChange: setCampaign,
    templates: ctx.utmTemplates,
    tagOptions: ctx.tagOptions,
    errors: { tags: err("tags"), utm: err("utm") },
  };
  return {
    editing,
    v,
    start,
    campaign,
    campaignStart,
    setCampaign,
    /** the campaign fields' props (campaign-fields.tsx), the same in the builder and the dialog */
    campaignFields,
    section,
    id,
    err,
    formRef,
    submit,
    pending: save.isPending,
    topError: topError ?? (Object.keys(localErrors).length ? "Check the highlighted fields." : null),
    domainOptions,
    /** the fields with a message beside them */
    errorFields: Object.keys(errors),
  };
}
