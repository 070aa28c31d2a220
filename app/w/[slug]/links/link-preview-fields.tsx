"use client";
import { useMutation } from "@tanstack/react-query";
import { PREVIEW_DESCRIPTION_MAX, PREVIEW_TITLE_MAX } from "@/lib/links/routing-schema";
import { withDefaultScheme } from "@/lib/links/url-input";
import { Field, inputClass, secondaryButtonClass } from "@/components/ui";
import { fetchPreviewAction } from "./routing-actions";
import { PlanLine, useRoutingSetter, RoutingSection, type RoutingSectionProps } from "./routing-section";

/**
 * The card link-preview fetchers get instead of the destination's own, with "Fetch from destination".
 * The card as it will look is in the builder's preview column (link-builder-preview.tsx).
 */
export function LinkPreviewFields(props: RoutingSectionProps) {
  const { v, id, err, ctx, upgrade, slug, described } = props;
  const setRouting = useRoutingSetter(props);
  const p = v.routing.preview;
  const put = (k: keyof typeof p, value: string) => setRouting("preview", { ...p, [k]: value });
  const fetchCard = useMutation({
    mutationFn: () => fetchPreviewAction(slug, { url: withDefaultScheme(v.url) }),
    onSuccess: (r) => {
      if (r.ok) setRouting("preview", { title: r.data.title ?? "", description: r.data.description ?? "", image: r.data.image ?? "" });
    },
  });
  const failed = fetchCard.data && !fetchCard.data.ok ? (fetchCard.data.fields?.url ?? fetchCard.data.error) : null;
  const empty = !p.title && !p.description && !p.image;
  const locked = !ctx.features.previews && empty;

  return (
    <RoutingSection
      title="Preview card"
      about="What Slack, X, LinkedIn and other apps show when the short link is shared. Empty: the destination's own card."
      error={err("preview")}
      errorId={`${id("preview")}-error`}
      testId="routing-preview"
    >
      {locked ? (
        <PlanLine>{upgrade("Custom preview cards are not in your plan.")}</PlanLine>
      ) : (
        <div>
          <div className="space-y-3">
            <Field label="Preview title" htmlFor={id("previewTitle")}>
              <input
                id={id("previewTitle")}
                value={p.title}
                maxLength={PREVIEW_TITLE_MAX}
                onChange={(e) => put("title", e.target.value)}
                className={inputClass}
                {...described("preview")}
              />
            </Field>
            <Field label="Preview description" htmlFor={id("previewDescription")}>
              <textarea
                id={id("previewDescription")}
                value={p.description}
                maxLength={PREVIEW_DESCRIPTION_MAX}
                rows={3}
                onChange={(e) => put("description", e.target.value)}
                className={inputClass}
              />
            </Field>
            <Field label="Preview image URL" htmlFor={id("previewImage")} hint="An https address; about 1200 × 630 pixels suits every app.">
              <input
                id={id("previewImage")}
                type="url"
                inputMode="url"
                value={p.image}
                placeholder="https://example.com/card.png"
                onChange={(e) => put("image", e.target.value)}
                className={inputClass}
              />
            </Field>
            <div className="flex flex-wrap items-center gap-2">
              <button
                type="button"
                className={secondaryButtonClass}
                disabled={fetchCard.isPending || !v.url.trim() || !ctx.features.previews}
                onClick={() => fetchCard.mutate()}
              >
                {fetchCard.isPending ? "Fetching…" : "Fetch from destination"}
              </button>
              {!empty && (
                <button
                  type="button"
                  className={secondaryButtonClass}
                  onClick={() => setRouting("preview", { title: "", description: "", image: "" })}
                >
                  Clear card
                </button>
              )}
            </div>
            <div role="status" aria-live="polite" className="text-xs">
              {failed && <p className="text-red-700">{failed}</p>}
              {fetchCard.isError && <p className="text-red-700">Could not reach the server. Try again.</p>}
            </div>
            {!ctx.features.previews && (
              <p className="text-xs">{upgrade("Custom preview cards are not in your plan: clear it to save other changes.")}</p>
            )}
          </div>
        </div>
      )}
    </RoutingSection>
  );
}
