"use client";
import { Field, inputClass } from "@/components/ui";
import type { LinkFormContext } from "@/lib/links/views";
import type { LinkSectionProps } from "./link-values";

/** Start and expiry times, the click limit and the fallback URL. */
export function LinkScheduleFields({ v, set, id, err, described, upgrade, ctx }: LinkSectionProps & { ctx: LinkFormContext }) {
  return (
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
  );
}
