/** A labelled progress bar (role=progressbar) for imports and usage against an allowance. */
export function ProgressBar({
  value,
  max,
  label,
  tone = "brand",
}: {
  value: number;
  max: number;
  label: string;
  tone?: "brand" | "amber" | "red";
}) {
  const pct = max > 0 ? Math.min(100, (value / max) * 100) : 0;
  const colour = { brand: "bg-brand-600", amber: "bg-amber-500", red: "bg-red-600" }[tone];
  return (
    <div
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={max}
      aria-valuenow={value}
      className="h-2.5 w-full overflow-hidden rounded-full bg-slate-200"
    >
      <div className={`h-full rounded-full ${colour} transition-[width] duration-300`} style={{ width: `${pct}%` }} />
    </div>
  );
}

export function Spinner({ label = "Loading" }: { label?: string }) {
  return (
    <span role="status" className="inline-flex items-center gap-2 text-sm text-slate-500">
      <svg aria-hidden className="h-4 w-4 animate-spin" viewBox="0 0 24 24" fill="none">
        <circle cx="12" cy="12" r="10" stroke="currentColor" strokeOpacity="0.25" strokeWidth="4" />
        <path d="M22 12a10 10 0 0 0-10-10" stroke="currentColor" strokeWidth="4" strokeLinecap="round" />
      </svg>
      {label}
    </span>
  );
}

/** Grey placeholder blocks shown while a page streams in (loading.tsx files). */
