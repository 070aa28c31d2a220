import { prunePendingSignUps } from "./pending-signup.ts";
import { pruneResetLinks } from "./password-reset.ts";
import { pruneAuthThrottle } from "./throttle.ts";
import { log } from "../log/index.ts";

const HOUR = 3_600_000;

/** Drops ended sign-in and sign-up limit windows, old password reset links and old waiting sign-ups once an hour; returns the stop. */
export function startAuthJobs(): () => Promise<void> {
  const prune = () => {
    void pruneAuthThrottle().catch((e: Error) => log("auth").error({ err: e }, "pruning sign-in limits failed"));
    void pruneResetLinks().catch((e: Error) => log("auth").error({ err: e }, "pruning password reset links failed"));
    void prunePendingSignUps().catch((e: Error) => log("auth").error({ err: e }, "pruning waiting sign-ups failed"));
  };
  const timer = setInterval(prune, HOUR);
  timer.unref();
  return async () => clearInterval(timer);
}
