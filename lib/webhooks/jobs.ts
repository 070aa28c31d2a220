import { config } from "../config/index.ts";
import { closePooledConnections } from "../net/index.ts";
import { setSchedulerWake, sweepUnhandedDeliveries } from "./handoff.ts";
import { pruneDeliveryLog } from "./retention.ts";
import { startBuiltInScheduler } from "./scheduler.ts";

// Background work of the webhooks area in the app process (started by lib/runtime.ts):
// - Inngest configured: a sweep that hands off again deliveries Inngest never acknowledged;
// - otherwise: the built-in scheduler;
// - always: the daily removal of the delivery log older than 30 days.

export const SWEEP_EVERY_MS = 30_000;
export const PRUNE_EVERY_MS = 86_400_000;

export async function startWebhookJobs(): Promise<() => Promise<void>> {
  const cfg = config();
  const timers: NodeJS.Timeout[] = [];
  let stopScheduler = async () => {};

  if (cfg.inngestEnabled) {
    console.log("[webhooks] deliveries run on Inngest (served at /api/inngest)");
    const sweep = () =>
      sweepUnhandedDeliveries().then(
        (n) => n && console.log(`[webhooks] handed ${n} deliveries to Inngest again`),
        (e) => console.error(`[webhooks] sweep: ${(e as Error).message}`),
      );
    timers.push(setInterval(sweep, SWEEP_EVERY_MS));
    timers.push(setTimeout(sweep, 5_000));
  } else {
    console.log("[webhooks] deliveries run on the built-in scheduler");
    const scheduler = startBuiltInScheduler();
    setSchedulerWake(scheduler.wake);
    stopScheduler = async () => {
      setSchedulerWake(undefined);
      await scheduler.stop();
    };
  }

  const prune = () =>
    pruneDeliveryLog().then(
      (r) => (r.attempts || r.events) && console.log(`[webhooks] removed ${r.events} events and ${r.attempts} attempts older than 30 days`),
      (e) => console.error(`[webhooks] pruning the delivery log: ${(e as Error).message}`),
    );
  timers.push(setTimeout(prune, 60_000));
  timers.push(setInterval(prune, PRUNE_EVERY_MS));
  for (const t of timers) t.unref();

  return async () => {
    for (const t of timers) clearTimeout(t);
    await stopScheduler();
    closePooledConnections();
  };
}
