import { config } from "../config/index.ts";
import { closePooledConnections } from "../net/index.ts";
import { setSchedulerWake, sweepUnhandedDeliveries } from "./handoff.ts";
import { pruneDeliveryLog } from "./retention.ts";
import { startBuiltInScheduler } from "./scheduler.ts";
import { log } from "../log/index.ts";

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
    log("webhooks").info("deliveries run on Inngest (served at /api/inngest)");
    const sweep = () =>
      sweepUnhandedDeliveries().then(
        (n) => void (n && log("webhooks").info({ deliveries: n }, `handed ${n} deliveries to Inngest again`)),
        (e) => log("webhooks").error({ err: e }, "sweep failed"),
      );
    timers.push(setInterval(sweep, SWEEP_EVERY_MS));
    timers.push(setTimeout(sweep, 5_000));
  } else {
    log("webhooks").info("deliveries run on the built-in scheduler");
    const scheduler = startBuiltInScheduler();
    setSchedulerWake(scheduler.wake);
    stopScheduler = async () => {
      setSchedulerWake(undefined);
      await scheduler.stop();
    };
  }

  const prune = () =>
    pruneDeliveryLog().then(
      (r) =>
        void (
          (r.attempts || r.events) &&
          log("webhooks").info(r, `removed ${r.events} events and ${r.attempts} attempts older than 30 days`)
        ),
      (e) => log("webhooks").error({ err: e }, "pruning the delivery log failed"),
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
