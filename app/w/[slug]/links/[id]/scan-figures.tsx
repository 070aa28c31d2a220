import type { AnalyticsAnswer } from "@/lib/analytics/reports/service";

// A link's QR scans apart from its other clicks, over the page's range and filters: the analytics'
// qr split (groupBy=qr; a scan is a visit through the QR marker, lib/analytics/ingest/qr.ts).

type Row = { qr: boolean | null; clicks: number; visitors: number };

export function ScanFigures({ answer }: { answer: AnalyticsAnswer }) {
  const rows = (answer.data ?? []) as Row[];
  const sum = (qr: boolean) => rows.filter((r) => Boolean(r.qr) === qr).reduce((n, r) => n + r.clicks, 0);
  const figures = [
    { label: "QR scans", value: sum(true), testId: "link-qr-scans" },
    { label: "Link clicks", value: sum(false), testId: "link-plain-clicks" },
  ];
  return (
    <dl aria-label="QR scans and link clicks in this period" className="grid grid-cols-2 gap-3 sm:max-w-sm">
      {figures.map((f) => (
        <div key={f.label} className="rounded-lg border border-slate-200 bg-white px-4 py-3 shadow-sm">
          <dt className="text-xs font-medium text-slate-600">{f.label}</dt>
          <dd className="text-xl font-semibold tabular-nums text-slate-900" data-testid={f.testId}>
            {f.value.toLocaleString("en")}
          </dd>
        </div>
      ))}
    </dl>
  );
}
