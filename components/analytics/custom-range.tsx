"use client";
import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import { dateInZone, nextDate, withParams, zoneMidnightIso } from "@/lib/analytics/reports/page-url";
import { inputClass, secondaryButtonClass } from "@/components/ui";

// The custom range of the Analytics page: a start and an end date (both included) in the page's
// time zone, written into the URL as start/end (ISO 8601 with the zone's offset) so the view can be
// linked; the server resolves and bounds the range as the API does (reports/service.ts).

export function CustomRange({
  basePath,
  params,
  start,
  end,
  timezone,
}: {
  basePath: string;
  /** the page's other parameters (interval, start and end are replaced) */
  params: Record<string, string>;
  /** the range shown (ISO instants; end exclusive) */
  start: string;
  end: string;
  timezone: string;
}) {
  const router = useRouter();
  const id = useId();
  const [from, setFrom] = useState(() => dateInZone(Date.parse(start), timezone));
  const [to, setTo] = useState(() => dateInZone(Math.max(Date.parse(start), Date.parse(end) - 1), timezone));
  const [error, setError] = useState<string | null>(null);

  function apply(e: React.FormEvent) {
    e.preventDefault();
    if (!from || !to) return setError("Choose a start and an end date.");
    if (to < from) return setError("The end date must not be before the start date.");
    setError(null);
    router.push(
      withParams(basePath, params, {
        interval: null,
        start: zoneMidnightIso(from, timezone),
        end: zoneMidnightIso(nextDate(to), timezone),
      }),
    );
  }

  return (
    <form onSubmit={apply} aria-label="Custom range" className="flex flex-wrap items-end gap-2" noValidate>
      <label className="text-xs text-slate-600" htmlFor={`${id}-from`}>
        From
        <input
          id={`${id}-from`}
          type="date"
          value={from}
          onChange={(e) => setFrom(e.target.value)}
          className={`${inputClass} mt-0.5 py-1`}
          aria-invalid={error ? true : undefined}
        />
      </label>
      <label className="text-xs text-slate-600" htmlFor={`${id}-to`}>
        To
        <input
          id={`${id}-to`}
          type="date"
          value={to}
          onChange={(e) => setTo(e.target.value)}
          className={`${inputClass} mt-0.5 py-1`}
          aria-invalid={error ? true : undefined}
        />
      </label>
      <button type="submit" className={secondaryButtonClass}>
        Apply range
      </button>
      {error && (
        <p role="alert" className="w-full text-sm text-red-700">
          {error}
        </p>
      )}
    </form>
  );
}
