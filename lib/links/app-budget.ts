import { takeAttempt } from "../auth/throttle-sql.ts";
import { config } from "../config/index.ts";
import { ServiceError } from "../errors.ts";
import { planOf } from "../plans/index.ts";
import type { LinkWorkspace } from "./lookup.ts";

// The app's counterpart of the API's rate budget (docs/operations.md, Security): every server action that
// creates links (the link form's create, each chunk of the CSV import) spends one request of a
// budget per user: the workspace plan's rateLimit per RATE_LIMIT_WINDOW_SECONDS, the same numbers
// as one API key. An import chunk (at most 100 rows) is one request, like a bulk call of the API,
// so an import of the largest file the importer takes (10,000 rows, 100 chunks) fits in one
// window of every built-in plan that has imports. Counted in PostgreSQL in one atomic statement
// (the generic throttle of lib/auth/throttle-sql.ts), so parallel calls and several app processes
// never get more than the budget. A plan without a rate (rateLimit null) has no budget here either.

const keyOf = (userId: number) => `app-link-create:${userId}`;

/** Spends one request of the user's link-creating budget, or throws the rate_limit ServiceError. */
export async function spendLinkCreateBudget(userId: number, workspace: Pick<LinkWorkspace, "plan">): Promise<void> {
  const limit = planOf(workspace.plan).rateLimit;
  if (limit === null) return;
  const wait = await takeAttempt(keyOf(userId), limit, config().RATE_LIMIT_WINDOW_SECONDS);
  if (wait !== null) throw ServiceError.rateLimit(limit);
}
