"use client";
import { useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useId, useState } from "react";
import { copyText } from "@/components/copy-button";
import { useToast } from "@/components/toast";
import { buttonClass, FormError, secondaryButtonClass } from "@/components/ui";
import type { LinkFormContext } from "@/lib/links/views";
import { CampaignFields, TagsField } from "./campaign-fields";
import { LinkDestinationField, LinkDetailFields, LinkDomainField } from "./link-basic-fields";
import { LinkCodeField } from "./link-code-field";
import { LinkForwardingFields } from "./link-forwarding-fields";
import { LinkPasswordField } from "./link-password-field";
import { LinkPreviewFields } from "./link-preview-fields";
import { LinkRuleFields } from "./link-rule-fields";
import { LinkScheduleFields } from "./link-schedule-fields";
import { LinkTargetingFields } from "./link-targeting-fields";
import { LinkVariantFields } from "./link-variant-fields";
import { useLinkEditor, type Saved } from "./use-link-editor";

// The quick-create dialog's form, loaded on idle by quick-create.tsx (which listens for `C`, a
// paste and "New link", and opens the dialog): destination, domain, code and tags at once; "More
// options" opens every other field of the link builder in place (the same field components).
// Creating goes through the builder's own save (use-link-editor.ts -> createLinkAction ->
// lib/links); the short link is copied, the dialog closes onto the list, and the new row is
// highlighted (?created=<id>).

/** What the plan lacks, in a person's words, for the one quiet line. */
function lockedOptions(features: LinkFormContext["features"]): string[] {
  const names: [boolean, string][] = [
    [features.aliases, "custom codes"],
    [features.expiry, "start and expiry times"],
    [features.passwords, "passwords"],
    [features.redirectRules, "routing"],
    [features.abTesting, "A/B splits"],
    [features.previews, "previews"],
  ];
  return names.filter(([has]) => !has).map(([, name]) => name);
}

const sentence = (names: string[]) => {
  const list = names.length === 1 ? names[0] : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
  return list.charAt(0).toUpperCase() + list.slice(1);
};

/** The fields shown without "More options". */
const SHOWN_FIELDS = new Set(["url", "domain", "alias", "tags"]);

export function QuickCreateForm({
  slug,
  ctx,
  initialUrl,
  onClose,
}: {
  slug: string;
  ctx: LinkFormContext;
  initialUrl: string;
  onClose: () => void;
}) {
  const router = useRouter();
  const toast = useToast();
  const client = useQueryClient();
  const [more, setMore] = useState(false);
  const moreId = useId();

  async function created(r: Saved) {
    onClose();
    const short = r.short ?? "";
    const copied = await copyText(short);
    toast(copied ? `Short link copied: ${short}` : `Short link created: ${short}`);
    const url = new URL(window.location.href);
    url.searchParams.set("created", String(r.id));
    router.replace(`${url.pathname}${url.search}`, { scroll: false });
    client.invalidateQueries({ queryKey: ["links", slug] });
  }

  // One quiet line for everything the plan lacks; the sections say nothing of it here.
  const editor = useLinkEditor({ slug, ctx, initialUrl, upgrade: () => null, onSaved: created });
  const { section, id, err } = editor;
  const locked = lockedOptions(ctx.features);
  // a message for a field under "More options" opens it, so the message is seen
  const hiddenProblem = editor.errorFields.some((f) => !SHOWN_FIELDS.has(f));
  useEffect(() => {
    if (hiddenProblem) setMore(true);
  }, [hiddenProblem]);
  const basic = { ...section, editing: false, ctx, slug, domainOptions: editor.domainOptions };

  return (
    <form ref={editor.formRef} onSubmit={editor.submit} noValidate className="space-y-4" aria-label="Quick create">
      <FormError message={editor.topError} />
      <LinkDestinationField {...basic} autoFocus={false} />
      <div className="grid gap-4 sm:grid-cols-[minmax(0,2fr)_minmax(0,3fr)]">
        <LinkDomainField {...basic} />
        <LinkCodeField {...basic} />
      </div>
      <TagsField id={id} values={editor.campaign} onChange={editor.setCampaign} tagOptions={ctx.tagOptions} error={err("tags")} />
      {locked.length > 0 && (
        <p data-testid="plan-line" className="text-xs text-slate-600">
          {sentence(locked)} {locked.length === 1 ? "needs" : "need"} a bigger plan —{" "}
          <Link href={`/w/${slug}/settings/usage`} className="font-medium text-brand-700 underline underline-offset-2">
            see plans
          </Link>
        </p>
      )}
      <button
        type="button"
        aria-expanded={more}
        aria-controls={moreId}
        onClick={() => setMore((m) => !m)}
        className="inline-flex items-center gap-1 text-sm font-medium text-brand-700 hover:underline"
      >
        <svg aria-hidden className={`h-4 w-4 transition-transform ${more ? "rotate-90" : ""}`} viewBox="0 0 20 20" fill="currentColor">
          <path d="M7 5l6 5-6 5z" />
        </svg>
        More options
      </button>
      <div id={moreId} hidden={!more} className="space-y-4" data-testid="more-options">
        {more && (
          <>
            <section className="space-y-4 rounded-lg border border-slate-200 bg-white p-4">
              <LinkDetailFields {...basic} />
            </section>
            <CampaignFields {...editor.campaignFields} withTags={false} />
            <LinkScheduleFields {...section} ctx={ctx} />
            {ctx.features.passwords && <LinkPasswordField {...section} ctx={ctx} hasPassword={false} />}
            <LinkTargetingFields {...section} />
            {ctx.features.redirectRules && <LinkRuleFields {...section} ctx={ctx} slug={slug} />}
            {ctx.features.abTesting && <LinkVariantFields {...section} ctx={ctx} slug={slug} />}
            <LinkForwardingFields {...section} ctx={ctx} slug={slug} />
            {ctx.features.previews && <LinkPreviewFields {...section} ctx={ctx} slug={slug} />}
          </>
        )}
      </div>
      <div className="flex justify-end gap-2 border-t border-slate-200 pt-4">
        <button type="button" className={secondaryButtonClass} onClick={onClose}>
          Cancel
        </button>
        <button type="submit" className={buttonClass} disabled={editor.pending}>
          {editor.pending ? "Creating…" : "Create link"}
        </button>
      </div>
    </form>
  );
}
