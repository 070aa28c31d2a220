import { webhooksAllowed, type Plan } from "../plans/index.ts";
import { isReservedAlias } from "./short-code.ts";

// Which statements carry out a create: decided here and nowhere else (create.ts carries it out,
// with the statements of create-sql.ts and the event fragment of lib/events).
//
// | create                                          | shape           | statements, in order (tables written)                        |
// | ----------------------------------------------- | --------------- | ------------------------------------------------------------ |
// | a reserved alias, or a plan allowing no links   | refused         | one read of the allowance used (none): quota, else taken     |
// | one link, a plan without webhooks               | one statement   | createStatement: Link, LinkTag, Tag (its tags), MonthlyUsage |
// | one link, webhooks in the plan                  | one statement,  | the same, with the link.created event: WebhookEvent and a    |
// |                                                 |   with event    |   Delivery per receiving endpoint (none: nothing written)    |
// | one link with a password (either plan)          | the same, after | precheckStatement (none: it reads), the hash, then the       |
// |                                                 |   a pre-check   |   create's one statement as above                            |
// | many links (bulk)                               | bulk            | begin; ids; insertLinks rounds (Link); the allowance; rows   |
// |                                                 |                 |   past it deleted; tagNewLinks (Tag, LinkTag); events; commit |
//
// Every shape writes a link with THE insert (create-sql.ts linkInsert), takes the allowance with
// THE quota fragment (allowance.ts takeAllowance) and draws a taken generated code again with THE
// retry (short-code.ts insertDrawingCodes); refusals come in one order: 400 validation, 403
// feature, 403 quota, 409 alias_taken. The event (a plan with webhooks) is written in the
// statement of the change (lib/events recordEventCte), and its deliveries handed off once that
// statement has committed. A statement's text holds only the parts its create needs.
// A password is hashed (scrypt, slow on purpose) only once nothing refuses the create: the pre-check
// reads in one statement what the create statement would refuse, which decides again after the hash.
// The destination check against verified custom domains is left to the statements ("statement"),
// but for a refused or bulk create ("read").
//
// An API request on a plan with a rate is counted against its key (lib/ratelimit) exactly once:
//
// | create                                   | rate           | where the request is counted                                    |
// | ---------------------------------------- | -------------- | --------------------------------------------------------------- |
// | no rate (the app, a plan without a rate) | none           | nowhere                                                         |
// | one statement, no password               | in statement   | liveKeyRateCte in createStatement (RateWindow before the        |
// |                                          |                |   allowance row): one round trip; every write waits on the      |
// |                                          |                |   count; a refusal rolls the count back too, and the request    |
// |                                          |                |   is then counted on its own (lib/api/handler.ts)               |
// | one statement with a password            | in statement   | liveKeyRateCte in precheckStatement: an over-limit request      |
// |                                          |                |   costs no hash; the create statement after it counts nothing   |
// | refused, bulk                            | apart          | its own statement first (no single statement to carry it)       |

export type CreateShape = "refused" | "one statement" | "bulk";

/** Where an API request's rate count goes (see the second table). */
export type CreateRate = "none" | "in statement" | "apart";

export type CreatePlan = {
  shape: CreateShape;
  /** one statement: the link.created event is written in it (a plan with webhooks) */
  event: boolean;
  /** where the destinations are checked against verified custom domains */
  destinations: "read" | "statement";
  /** one statement: a password to hash first, after precheckStatement (create-sql.ts) */
  precheck: boolean;
  rate: CreateRate;
};

export type CreateRequest = {
  /** 1, or "many" (bulk: every row in one transaction) */
  links: 1 | "many";
  alias?: string | null;
  password?: string | null;
  /** an API request to be counted against its key's rate (the plan has one) */
  rated?: boolean;
};

export function planCreate(create: CreateRequest, plan: Plan): CreatePlan {
  const rated = create.rated && plan.rateLimit !== null;
  const precheck = !!create.password;
  if (create.links === "many")
    return { shape: "bulk", event: false, destinations: "read", precheck: false, rate: rated ? "apart" : "none" };
  if (plan.maxLinks < 1 || (typeof create.alias === "string" && isReservedAlias(create.alias)))
    return { shape: "refused", event: false, destinations: "read", precheck: false, rate: rated ? "apart" : "none" };
  return {
    shape: "one statement",
    event: webhooksAllowed(plan),
    destinations: "statement",
    precheck,
    rate: rated ? "in statement" : "none",
  };
}
