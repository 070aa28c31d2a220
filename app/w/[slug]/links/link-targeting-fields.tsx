"use client";
import { Field, inputClass, secondaryButtonClass } from "@/components/ui";
import { nextGeoKey, type LinkSectionProps } from "./link-values";

/** Where iPhone, Android and visitors from chosen countries go instead. */
export function LinkTargetingFields({ v, set, id, err }: LinkSectionProps) {
  return (
    <section className="space-y-4 rounded-lg border border-slate-200 bg-white p-5 shadow-sm">
      <div>
        <h2 className="text-sm font-semibold">Targeting</h2>
        <p className="text-xs text-slate-500">
          Send iPhone, Android or visitors from a country somewhere else. Everyone else goes to the destination URL.
        </p>
      </div>
      {err("targeting") && (
        <p id={`${id("targeting")}-error`} data-field-error className="text-xs text-red-600">
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
          onClick={() => set("geo", [...v.geo, { key: nextGeoKey(), country: "", url: "" }])}
        >
          Add country
        </button>
        <p className="text-xs text-slate-500">Two-letter ISO country codes (US, DE, JP).</p>
      </fieldset>
    </section>
  );
}
