// Background work of the app process. Each area adds its starter here; each returns its stop.
type Stop = () => Promise<void>;

export async function startBackgroundJobs(): Promise<Stop> {
  const stops: Stop[] = [];
  return async () => {
    await Promise.allSettled(stops.map((s) => s()));
  };
}
