// Background work of the app process. Each area adds its starter here; each returns its stop.
type Stop = () => Promise<void>;

export async function startBackgroundJobs(): Promise<Stop> {
  const stops: Stop[] = [];
  // redirects: counted clicks are written every second (and once more on stop)
  const { startClickFlushing } = await import("./redirects/clicks.ts");
  stops.push(await startClickFlushing());
  // analytics: click events are written every second (and once more on stop); partitions and retention hourly
  const { startAnalyticsJobs } = await import("./analytics/jobs.ts");
  stops.push(await startAnalyticsJobs());
  // webhooks: the built-in scheduler (or the Inngest hand-off sweep) and the daily log pruning
  const { startWebhookJobs } = await import("./webhooks/index.ts");
  stops.push(await startWebhookJobs());
  // auth: ended sign-in and sign-up limit windows are dropped hourly
  const { startAuthJobs } = await import("./auth/jobs.ts");
  stops.push(startAuthJobs());
  return async () => {
    await Promise.allSettled(stops.map((s) => s()));
  };
}
