"use client";
import { withDefaultScheme } from "@/lib/links/url-input";
import type { LinkFormContext } from "@/lib/links/views";
import { LinkQrPreview } from "./link-qr-preview";
import { PreviewCard } from "./preview-card";
import type { Values } from "./link-values";

// The link builder's right column: how the link will look when shared (the preview card, from the
// custom preview when set, else the title) and its QR code, both following what is typed.

/** The short URL as typed: the code, or a placeholder while the code is left to be drawn. */
export function typedShortUrl(ctx: Pick<LinkFormContext, "shortScheme">, v: Pick<Values, "domain" | "alias">): string {
  return `${ctx.shortScheme}//${v.domain}/${v.alias.trim() || "abc1234"}`;
}

export function LinkBuilderPreview({ ctx, v }: { ctx: LinkFormContext; v: Values }) {
  const p = v.routing.preview;
  const short = typedShortUrl(ctx, v);
  return (
    <aside aria-label="Preview" data-testid="builder-preview" className="space-y-4 lg:sticky lg:top-4">
      <section className="space-y-2 rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
        <h2 className="text-sm font-semibold">Link preview</h2>
        <PreviewCard title={p.title || v.title} description={p.description} image={p.image} url={withDefaultScheme(v.url)} />
      </section>
      <section className="space-y-2 rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
        <h2 className="text-sm font-semibold">QR code</h2>
        <div className="flex items-center gap-4">
          <LinkQrPreview value={short} />
          <p className="min-w-0 break-all text-xs text-slate-600">
            {short}
            {!v.alias.trim() && <span className="block pt-1">The code is drawn when the link is created.</span>}
          </p>
        </div>
      </section>
    </aside>
  );
}
