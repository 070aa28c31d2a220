import type { Detection } from "@/lib/csv/foreign";
import { Card } from "@/components/ui";

const TARGET_LABEL: Record<string, string> = {
  url: "url",
  alias: "alias",
  title: "title",
  tags: "tags",
  notes: "notes",
  active: "active",
  createdNote: "notes",
};

/** How another service's export maps to Linkhop's columns, shown before anything is created. */
export function MappingCard({ detection }: { detection: Detection }) {
  return (
    <Card title="Column mapping">
      <p className="text-sm text-slate-700" data-testid="import-format">
        {detection.label} export detected
      </p>
      <div className="-mx-5 mt-3 overflow-x-auto">
        <table aria-label="Column mapping" className="w-full text-left text-sm">
          <thead className="text-xs uppercase tracking-wide text-slate-500">
            <tr>
              <th className="px-5 py-2 font-medium">{detection.label} column</th>
              <th className="px-3 py-2 font-medium">Linkhop field</th>
              <th className="px-3 py-2 font-medium">How</th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {detection.columns.map((c) => (
              <tr key={c.header}>
                <td className="px-5 py-2 font-mono text-xs">{c.header}</td>
                <td className="px-3 py-2">{c.target ? TARGET_LABEL[c.target] : <span className="text-slate-400">not imported</span>}</td>
                <td className="px-3 py-2 text-slate-600">{c.target ? c.how : ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Card>
  );
}
