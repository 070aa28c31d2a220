"use client";
import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

// Clicks and unique visitors over time, drawn with uPlot (a maintained charting library), sized to
// its container (phone width included) and labelled in the report's time zone; the previous period's
// clicks (same length, right before) as a faint dashed line on the same buckets, bucket n over
// bucket n. The legend is static (uPlot's own shows "--" until hovered). The same figures are in a
// visually hidden table for screen readers.

export type SeriesPoint = { start: string; clicks: number; visitors: number };

const DAY = 86_400;
/** Tick spacings (seconds) for day buckets: 1, 2 and 7 days, then about 2 weeks, 1, 3 and 6 months, a year. */
const DAY_TICK_STEPS = [DAY, 2 * DAY, 7 * DAY, 14 * DAY, 30 * DAY, 91 * DAY, 182 * DAY, 365 * DAY];

const CLICKS = "#2f6fed";
const VISITORS = "#0f9d74";
const PREVIOUS = "#94a3b8";

export function TimeseriesChart({
  points,
  previous,
  timezone,
  granularity,
}: {
  points: SeriesPoint[];
  /** the previous period's buckets (null: no comparison) */
  previous?: SeriesPoint[] | null;
  timezone: string;
  granularity: "hour" | "day";
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const xs = points.map((p) => Date.parse(p.start) / 1000);
    const before = previous ? points.map((_, i) => previous[i]?.clicks ?? null) : null;
    const data: uPlot.AlignedData = [xs, points.map((p) => p.clicks), points.map((p) => p.visitors), ...(before ? [before] : [])];
    const width = () => Math.max(240, el.clientWidth);
    const plot = new uPlot(
      {
        width: width(),
        height: 220,
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), timezone),
        legend: { show: false },
        cursor: { drag: { x: false, y: false } },
        scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(4, Math.ceil(max * 1.1))] } },
        axes: [
          {
            stroke: "#64748b",
            grid: { stroke: "#f1f5f9" },
            values: granularity === "day" ? "{MMM} {D}" : "{h}{aa}",
            // day buckets get ticks on whole days only: uPlot would otherwise pick 12-hour steps on a
            // week and print every date twice
            ...(granularity === "day" ? { incrs: DAY_TICK_STEPS } : {}),
          },
          { stroke: "#64748b", grid: { stroke: "#f1f5f9" }, size: 40 },
        ],
        series: [
          { label: granularity === "day" ? "Day" : "Hour", value: granularity === "day" ? "{YYYY}-{MM}-{DD}" : "{YYYY}-{MM}-{DD} {HH}:00" },
          { label: "Clicks", stroke: CLICKS, width: 2, fill: "rgba(47,111,237,0.08)", points: { show: points.length <= 60 } },
          { label: "Visitors", stroke: VISITORS, width: 2, points: { show: points.length <= 60 } },
          ...(before ? [{ label: "Previous period", stroke: PREVIOUS, width: 1.5, dash: [4, 4], points: { show: false } }] : []),
        ],
      },
      data,
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: width(), height: 220 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [points, previous, timezone, granularity]);

  const totalClicks = points.reduce((n, p) => n + p.clicks, 0);
  return (
    <figure>
      <div
        ref={box}
        role="img"
        aria-label={`Clicks and visitors per ${granularity}: ${totalClicks} clicks in total`}
        data-testid="timeseries-chart"
        className="w-full overflow-hidden"
      />
      <figcaption className="mt-2 flex flex-wrap gap-x-4 gap-y-1 text-xs text-slate-700" data-testid="chart-legend">
        <span className="inline-flex items-center gap-1.5">
          <span aria-hidden className="inline-block h-0.5 w-4" style={{ background: CLICKS }} /> Clicks
        </span>
        <span className="inline-flex items-center gap-1.5">
          <span aria-hidden className="inline-block h-0.5 w-4" style={{ background: VISITORS }} /> Visitors
        </span>
        {previous && (
          <span className="inline-flex items-center gap-1.5">
            <span aria-hidden className="inline-block w-4 border-t-2 border-dashed" style={{ borderColor: PREVIOUS }} /> Clicks, previous
            period
          </span>
        )}
      </figcaption>
      {/* a table is as wide as its columns whatever its own width says: the wrapper is what hides it */}
      <div className="sr-only">
        <table>
          <caption>Clicks and visitors per {granularity}</caption>
          <thead>
            <tr>
              <th>{granularity === "day" ? "Day" : "Hour"}</th>
              <th>Clicks</th>
              <th>Visitors</th>
              {previous && <th>Clicks, previous period</th>}
            </tr>
          </thead>
          <tbody>
            {points.map((p, i) => (
              <tr key={p.start}>
                <td>{p.start}</td>
                <td>{p.clicks}</td>
                <td>{p.visitors}</td>
                {previous && <td>{previous[i]?.clicks ?? ""}</td>}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
