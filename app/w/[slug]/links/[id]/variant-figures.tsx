import { Card } from "@/components/ui";
import type { AnalyticsAnswer } from "@/lib/analytics/reports/service";
import type { Variant } from "@/lib/links/routing-schema";

// The A/B split's figures on a link's page: each variant's weight beside the clicks and visitors
// the analytics recorded for its destination (groupBy=destinations with the link filter, over the
// page's range). Destinations that are no longer variants (an earlier split, a rule) are listed after.

type Row = { destination: string | null; clicks: number; visitors: number };

export function VariantFigures({ variants, answer }: { variants: Variant[]; answer: AnalyticsAnswer }) {
  const rows = (answer.data ?? []) as Row[];
  const byUrl = new Map(rows.map((r) => [r.destination, r]));
  const others = rows.filter((r) => r.destination && !variants.some((v) => v.url === r.destination));
  const line = (url: string, weight: number | null, r: Row | undefined) => (
    <tr key={url} className="border-t border-slate-100" data-testid="variant-figure">
      <td className="break-all py-2 pr-3">{url}</td>
      <td className="py-2 pr-3 text-right tabular-nums">{weight === null ? "—" : `${weight}%`}</td>
      <td className="py-2 pr-3 text-right tabular-nums">{(r?.clicks ?? 0).toLocaleString("en")}</td>
      <td className="py-2 text-right tabular-nums">{(r?.visitors ?? 0).toLocaleString("en")}</td>
    </tr>
  );
  return (
    <Card title="A/B split">
      <div className="overflow-x-auto">
        <table className="w-full text-sm" aria-label="Clicks and visitors per variant">
          <thead>
            <tr className="text-left text-xs text-slate-500">
              <th className="pb-2 font-medium">Destination</th>
              <th className="pb-2 text-right font-medium">Weight</th>
              <th className="pb-2 text-right font-medium">Clicks</th>
              <th className="pb-2 text-right font-medium">Visitors</th>
            </tr>
          </thead>
          <tbody>
            {variants.map((v) => line(v.url, v.weight, byUrl.get(v.url)))}
            {others.map((r) => line(r.destination!, null, r))}
          </tbody>
        </table>
      </div>
      <p className="mt-2 text-xs text-slate-500">Over the range chosen above. A returning visitor keeps their variant.</p>
    </Card>
  );
}
