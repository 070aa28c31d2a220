// A small inline SVG bar chart of clicks per day (server-rendered, no chart library). Each bar has
// a <title> for hover and the figures are also in a visually hidden table for screen readers.
export type DayCount = { day: string; count: number };

export function ClicksChart({ days, height = 140 }: { days: DayCount[]; height?: number }) {
  const max = Math.max(1, ...days.map((d) => d.count));
  const total = days.reduce((s, d) => s + d.count, 0);
  const barW = 10;
  const gap = 4;
  const width = days.length * (barW + gap);
  const top = 16;
  const plot = height - top - 20;
  return (
    <figure>
      <svg
        role="img"
        aria-label={`Clicks per day over the last ${days.length} days: ${total} in total`}
        viewBox={`0 0 ${width} ${height}`}
        className="h-auto max-h-48 w-full"
      >
        <line x1="0" x2={width} y1={top + plot} y2={top + plot} stroke="#cbd5e1" strokeWidth="1" />
        {total > 0 && (
          <text x="0" y="10" fontSize="9" fill="#64748b">
            {max}
          </text>
        )}
        {days.map((d, i) => {
          const h = d.count === 0 ? 0 : Math.max(2, (d.count / max) * plot);
          return (
            <rect key={d.day} x={i * (barW + gap)} y={top + plot - h} width={barW} height={h} rx="2" fill="#2f6fed">
              <title>{`${d.day}: ${d.count} click${d.count === 1 ? "" : "s"}`}</title>
            </rect>
          );
        })}
        {days.length > 0 && (
          <>
            <text x="0" y={height - 4} fontSize="9" fill="#64748b">
              {shortDay(days[0].day)}
            </text>
            <text x={width} y={height - 4} fontSize="9" fill="#64748b" textAnchor="end">
              {shortDay(days[days.length - 1].day)}
            </text>
          </>
        )}
      </svg>
      <table className="sr-only">
        <caption>Clicks per day</caption>
        <tbody>
          {days.map((d) => (
            <tr key={d.day}>
              <th scope="row">{d.day}</th>
              <td>{d.count}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}

function shortDay(iso: string) {
  const d = new Date(`${iso}T00:00:00Z`);
  return d.toLocaleDateString("en", { month: "short", day: "numeric", timeZone: "UTC" });
}

/** The last `n` UTC days ending today, with counts from `rows` (missing days are 0). */
export function lastDays(rows: { day: Date; count: number }[], n = 30, now = new Date()): DayCount[] {
  const byDay = new Map(rows.map((r) => [r.day.toISOString().slice(0, 10), r.count]));
  const out: DayCount[] = [];
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  for (let i = n - 1; i >= 0; i--) {
    const day = new Date(today - i * 86_400_000).toISOString().slice(0, 10);
    out.push({ day, count: byDay.get(day) ?? 0 });
  }
  return out;
}
