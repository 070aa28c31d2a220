import { pruneAuthThrottle } from "./throttle.ts";

const HOUR = 3_600_000;

/** Drops ended sign-in and sign-up limit windows once an hour; returns the stop. */
export function startAuthJobs(): () => Promise<void> {
  const prune = () => void pruneAuthThrottle().catch((e: Error) => console.error(`[auth] pruning sign-in limits failed: ${e.message}`));
  const timer = setInterval(prune, HOUR);
  timer.unref();
  return async () => clearInterval(timer);
}
