// What a visitor would get right now, for the status badge (the redirect decides for real).
export function linkState(
  l: { active: boolean; startsOn: number | null; expiresOn: number | null; maxClicks: number | null; clicks: number },
  now = Date.now() / 1000,
) {
  if (!l.active) return { label: "Inactive", tone: "slate" as const };
  if (l.startsOn !== null && l.startsOn > now) return { label: "Scheduled", tone: "blue" as const };
  if (l.expiresOn !== null && l.expiresOn <= now) return { label: "Expired", tone: "red" as const };
  if (l.maxClicks !== null && l.clicks >= l.maxClicks) return { label: "Click limit reached", tone: "amber" as const };
  return { label: "Active", tone: "green" as const };
}
