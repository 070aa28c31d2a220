import type { EndpointView } from "@/lib/webhooks";
import { formatDateTime } from "@/components/dates";
import { OUTCOME_TEXT } from "@/lib/webhooks/outcomes";

// Small display helpers shared by the Developers pages (server and client).

/** A time in the delivery log and on the endpoint pages: the app's format, to the second. */
export function formatTime(d: Date | string | null | undefined): string {
  return formatDateTime(d, { seconds: true });
}

export function describeEvents(events: "all" | string[]): string {
  if (events === "all") return "All events";
  return events.includes("all") ? ["All events", ...events.filter((t) => t !== "all")].join(" + ") : events.join(", ");
}

const OUTCOMES: Record<string, string> = { ...OUTCOME_TEXT, cancelled: "Not sent" };

/** "HTTP 200" for an answer, else the reason ("Timed out", "TLS error", ...). */
export function describeOutcome(outcome: string, statusCode: number | null): string {
  if (statusCode !== null) return `HTTP ${statusCode}${outcome === "redirect" ? " (redirect, not followed)" : ""}`;
  return OUTCOMES[outcome] ?? outcome;
}

/** An endpoint's link.clicked scope as the form edits it (undefined: all links). */
export function clickScopeInput(
  e: Pick<EndpointView, "clickScope">,
): { folders?: string[]; tags?: string[]; links?: string[] } | undefined {
  const s = e.clickScope;
  return s.kind === "folders"
    ? { folders: s.folders }
    : s.kind === "tags"
      ? { tags: s.tags }
      : s.kind === "links"
        ? { links: s.links }
        : undefined;
}
