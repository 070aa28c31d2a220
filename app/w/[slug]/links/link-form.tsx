"use client";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useToast } from "@/components/toast";
import { buttonClass, FormError, secondaryButtonClass } from "@/components/ui";
import { CampaignFields } from "./campaign-fields";
import type { LinkDetail, LinkFormContext } from "@/lib/links/views";
import { LinkBasicFields } from "./link-basic-fields";
import { LinkBuilderPreview } from "./link-builder-preview";
import { LinkPasswordField } from "./link-password-field";
import { LinkScheduleFields } from "./link-schedule-fields";
import { LinkTargetingFields } from "./link-targeting-fields";
import { LinkForwardingFields } from "./link-forwarding-fields";
import { LinkPreviewFields } from "./link-preview-fields";
import { LinkRuleFields } from "./link-rule-fields";
import { LinkVariantFields } from "./link-variant-fields";
import { useLinkEditor } from "./use-link-editor";

// The link builder, for create and edit: every field of the API's create body on the left, and on
// a wide screen (lg, 1024 px) the live preview card and QR code on the right (one column below
// that). Fields the plan lacks are disabled with an upgrade hint; the server validates with the
// API's schemas and the messages come back beside the fields. One section per file; the state and
// the save: use-link-editor.ts; the values and the body they make: link-values.ts.

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
  const router = useRouter();
  const toast = useToast();
  const upgrade = (what: string) => (
    <span className="text-amber-700">
      {what}{" "}
      <Link href={`/w/${slug}/settings/usage`} className="font-medium underline">
        Upgrade
      </Link>
    </span>
  );
  const editor = useLinkEditor({
    slug,
    ctx,
    link,
    initialFolder,
    upgrade,
    onSaved: (r) => {
      if (link) toast(r.changed ? "Link saved" : "Nothing changed");
      else toast(`Short link created: ${r.short}`);
      router.push(`/w/${slug}/links/${r.id}`);
      router.refresh();
    },
    onNothingChanged: () => {
      toast("Nothing changed");
      router.push(`/w/${slug}/links/${link!.id}`);
    },
  });
  const { editing, section, v } = editor;

  return (
    <div className="grid gap-6 lg:grid-cols-[minmax(0,1fr)_20rem]">
      <form ref={editor.formRef} onSubmit={editor.submit} noValidate className="min-w-0 space-y-6" data-testid="builder-fields">
        <FormError message={editor.topError} />
        <LinkBasicFields {...section} editing={editing} ctx={ctx} slug={slug} domainOptions={editor.domainOptions} ownCode={link?.code} />

        <CampaignFields {...editor.campaignFields} />

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
          <button type="submit" className={buttonClass} disabled={editor.pending}>
            {editor.pending ? "Saving…" : editing ? "Save changes" : "Create link"}
          </button>
        </div>
      </form>
      <LinkBuilderPreview ctx={ctx} v={v} />
    </div>
  );
}
