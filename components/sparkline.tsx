// A tiny line of clicks per day (the Links list's trend column). Drawn as inline SVG: no chart
// library for 25 rows, and nothing to load.
export function Sparkline({ values, label }: { values: number[]; label: string }) {
  const w = 48;
  const h = 20;
  const max = Math.max(1, ...values);
  const step = values.length > 1 ? w / (values.length - 1) : w;
  const points = values.map((v, i) => `${(i * step).toFixed(1)},${(h - 1 - (v / max) * (h - 2)).toFixed(1)}`).join(" ");
  return (
    <svg role="img" aria-label={label} width={w} height={h} viewBox={`0 0 ${w} ${h}`} className="shrink-0 overflow-visible">
      <polyline points={points} fill="none" stroke="currentColor" strokeWidth="1.5" strokeLinejoin="round" className="text-brand-500" />
    </svg>
  );
}
