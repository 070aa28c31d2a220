import { webhooksAllowed, type Plan } from "../plans/index.ts";
import { isReservedAlias } from "./short-code.ts";

// Which statements carry out a create: decided here and nowhere else (create.ts carries it out,
// with the statements of create-sql.ts and the event writer of lib/events).
//
// | create                                          | shape           | statements, in order (tables written)                       |
// | ----------------------------------------------- | --------------- | ----------------------------------------------------------- |
// | a reserved alias, or a plan allowing no links   | refused         | one read of the allowance used (none): quota, else taken    |
// | one link, a plan without webhooks               | one statement   | createStatement: Link, LinkTag, Tag (its tags), MonthlyUsage |
// | one link, webhooks in the plan, endpoints not   | one statement,  | the same, unless the workspace has an enabled endpoint: then |
// |   known to exist                                |   guarded       |   nothing is written and the create is planned again        |
// | one link, the workspace has an enabled endpoint | transaction     | begin; createStatement without the allowance (Link, LinkTag, |
// |                                                 |                 |   Tag); the event (WebhookEvent, Delivery); the allowance   |
// |                                                 |                 |   (MonthlyUsage); commit                                     |
// | many links (bulk)                               | bulk            | begin; ids; insertLinks rounds (Link); the allowance; rows  |
// |                                                 |                 |   past it deleted; tagNewLinks (Tag, LinkTag); events; commit |
//
// Every shape writes a link with THE insert (create-sql.ts linkInsert), takes the allowance with
// THE quota fragment (allowance.ts takeAllowance) and draws a taken generated code again with THE
// retry (short-code.ts insertDrawingCodes); refusals come in one order: 400 validation, 403
// feature, 403 quota, 409 alias_taken. The event (a plan with webhooks) is written in the
// transaction of the change; with no enabled endpoint in the workspace no event is recorded
// (lib/events: only a subscribed endpoint gets one), so the guarded statement owes none.
// The destination check against verified custom domains is left to the statement ("statement")
// unless a password is to be hashed (only after every check) or nothing is written ("read").

export type CreateShape = "refused" | "one statement" | "transaction" | "bulk";

export type CreatePlan = {
  shape: CreateShape;
  /** one statement: write nothing when the workspace has an enabled endpoint (the event transaction then) */
  guarded: boolean;
  /** where the destinations are checked against verified custom domains */
  destinations: "read" | "statement";
};

export type CreateRequest = {
  /** 1, or "many" (bulk: every row in one transaction) */
  links: 1 | "many";
  alias?: string | null;
  password?: string | null;
  /** whether the workspace is known to have an enabled endpoint (after a guarded statement found one) */
  endpoint?: boolean;
};

export function planCreate(create: CreateRequest, plan: Plan): CreatePlan {
  if (create.links === "many") return { shape: "bulk", guarded: false, destinations: "read" };
  const destinations = create.password ? "read" : "statement";
  if (plan.maxLinks < 1 || (typeof create.alias === "string" && isReservedAlias(create.alias)))
    return { shape: "refused", guarded: false, destinations: "read" };
  if (!webhooksAllowed(plan)) return { shape: "one statement", guarded: false, destinations };
  if (create.endpoint) return { shape: "transaction", guarded: false, destinations };
  return { shape: "one statement", guarded: true, destinations };
}
