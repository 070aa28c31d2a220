import type { EndpointBacklog } from "@/lib/webhooks";
import { realTimeNow } from "@/lib/clock";
import { formatTime } from "./format";

// An endpoint's backlog (lib/webhooks/backlog.ts), shown only when there is one: deliveries due and
// waiting for their turn under the plan's delivery rate (or for a slow receiver), and for an
// endpoint that receives link.clicked, the clicks still behind its cursor: owed, their deliveries
// not written yet (docs/clicks.md).
export function BacklogLine({ backlog }: { backlog: EndpointBacklog | undefined }) {
  if (!backlog) return null;
  const clicks = backlog.clicks;
  const ago = (d: Date | null) => (d ? Math.max(0, Math.round((realTimeNow() - d.getTime()) / 1000)) : 0);
  return (
    <>
      {backlog.count > 0 && (
        <p className="mt-0.5 text-xs text-amber-700" data-testid="endpoint-backlog">
          Backlog: {backlog.count.toLocaleString("en-US")} {backlog.count === 1 ? "delivery" : "deliveries"} waiting, the oldest due{" "}
          {ago(backlog.oldestDueAt)} s ago (since {formatTime(backlog.oldestDueAt)})
        </p>
      )}
      {clicks && clicks.count > 0 && (
        <p className="mt-0.5 text-xs text-amber-700" data-testid="endpoint-click-backlog">
          Backlog: {clicks.count.toLocaleString("en-US")}
          {clicks.atLeast ? "+" : ""} {clicks.count === 1 && !clicks.atLeast ? "click" : "clicks"} not yet delivered, the oldest from{" "}
          {ago(clicks.oldestAt)} s ago (since {formatTime(clicks.oldestAt)})
        </p>
      )}
    </>
  );
}
