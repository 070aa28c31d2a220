import type { EndpointBacklog } from "@/lib/webhooks";
import { formatTime } from "./format";

// An endpoint's backlog: deliveries due and waiting for their turn under the plan's delivery rate
// (or for a slow receiver). Shown only when there is one.
export function BacklogLine({ backlog }: { backlog: EndpointBacklog | undefined }) {
  if (!backlog?.count) return null;
  const ageSeconds = backlog.oldestDueAt ? Math.max(0, Math.round((Date.now() - backlog.oldestDueAt.getTime()) / 1000)) : 0;
  return (
    <p className="mt-0.5 text-xs text-amber-700" data-testid="endpoint-backlog">
      Backlog: {backlog.count} {backlog.count === 1 ? "delivery" : "deliveries"} waiting, the oldest due {ageSeconds} s ago (since{" "}
      {formatTime(backlog.oldestDueAt)})
    </p>
  );
}
