import { pruneResetLinks } from "./password-reset.ts";
import { pruneAuthThrottle } from "./throttle.ts";

const HOUR = 3_600_000;

/** Drops ended sign-in and sign-up limit windows and old password reset links once an hour; returns the stop. */
export function startAuthJobs(): () => Promise<void> {
  const prune = () => {
    void pruneAuthThrottle().catch((e: Error) => console.error(`[auth] pruning sign-in limits failed: ${e.message}`));
    void pruneResetLinks().catch((e: Error) => console.error(`[auth] pruning password reset links failed: ${e.message}`));
  };
  const timer = setInterval(prune, HOUR);
  timer.unref();
  return async () => clearInterval(timer);
}
