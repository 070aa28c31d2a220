// Who writes each table: one owning area of lib/ (its folder, or a top-level file such as
// lib/runtime.ts by its name) alone inserts, updates and deletes its rows, through Prisma or SQL
// text. Any other area asks the owner. Reads may be shared where a measured hot path needs a join
// (the redirect's one-round-trip lookup reads Link, Domain and Workspace). The few writes outside
// the owner are listed under `others`, each with its reason; tests/unit/table-owners.test.ts fails
// on any write it finds elsewhere (a Prisma write, or SQL text that inserts, updates, deletes,
// truncates or copies into the table), and on an exception that no longer writes.

export type TableOwner = { owner: string; others?: Record<string, string> };

export const TABLES: Record<string, TableOwner> = {
  // accounts and sign-in
  User: {
    owner: "auth",
    others: {
      "lib/instance/admins.ts": "the instanceAdmin flag, granted and revoked by the admin CLI's instance:admin",
      "lib/instance/setup-link.ts":
        "the instanceAdmin flag, granted once by the first start's setup link, in the transaction that takes the link",
    },
  },
  Account: { owner: "auth" },
  TwoFactorRecoveryCode: { owner: "auth" },
  PasswordReset: { owner: "auth" },
  PendingSignUp: { owner: "auth" },
  AuthThrottle: { owner: "auth" }, // also the app's link-creating budget, through auth/throttle-sql.ts
  // workspaces and who is in them
  Workspace: {
    owner: "workspaces",
    others: {
      "lib/auth/delete-account.ts":
        "deleting an account deletes the workspaces it alone is in, in the same serializable transaction (a member joining meanwhile stops it)",
    },
  },
  // the workspace's QR logo (lib/workspaces/logo.ts); deleted with its workspace by the foreign key
  WorkspaceLogo: { owner: "workspaces" },
  Membership: {
    owner: "members",
    others: { "lib/workspaces/index.ts": "a new workspace's first owner, in the same transaction as the workspace" },
  },
  Invitation: { owner: "members" },
  InstanceSettings: { owner: "instance" },
  ApiKey: { owner: "keys" },
  RateWindow: { owner: "ratelimit" },
  Domain: { owner: "domains" },
  // links
  Link: {
    owner: "links",
    others: {
      "lib/clicks/counters.ts":
        "the clicks counter, added by the click flush and taken per click under a click cap (the redirect's hot path), and the last click's time, stamped by the flush",
      "lib/auth/delete-account.ts": "the links of the workspaces deleted with the account, in the same transaction",
    },
  },
  LinkTag: { owner: "links" },
  MonthlyUsage: { owner: "links" },
  UtmTemplate: { owner: "links" },
  Tag: { owner: "tags" },
  PasswordGuess: { owner: "redirects" },
  // the click pipeline's applied batch ids (exactly-once replay of the click journal)
  ClickBatch: { owner: "clicks" },
  // webhooks: an event and its deliveries are made by lib/events in the change's own transaction;
  // the delivery engine (lib/webhooks) carries deliveries out and keeps the endpoints
  WebhookEvent: {
    owner: "events",
    others: { "lib/webhooks/retention.ts": "events past the retention are deleted with their deliveries and attempts" },
  },
  Delivery: {
    owner: "webhooks",
    others: {
      "lib/events/index.ts": "inserts only: an event's deliveries are written with the event, in the transaction of the change",
      "lib/events/sql.ts": "inserts only: the same, as one SQL statement (a single create, the click flush)",
      "lib/workspaces/index.ts":
        "deactivating a workspace cancels its pending deliveries in the same transaction (lib/webhooks is imported by entries only)",
    },
  },
  DeliveryAttempt: { owner: "webhooks" },
  WebhookEndpoint: { owner: "webhooks" },
  // analytics (its own schema)
  "analytics.click_event": { owner: "analytics" },
  "analytics.click_day": { owner: "analytics" },
  "analytics.click_day_link": { owner: "analytics" },
  "analytics.click_day_done": { owner: "analytics" },
  // top destinations under a filter, and each destination's URL (lib/analytics/store/destination-rollup.ts)
  "analytics.click_day_destination": { owner: "analytics" },
  "analytics.click_destination": { owner: "analytics" },
  "analytics.visitor_salt": { owner: "analytics" },
  // the click-event feed's readers and where each is (lib/analytics/store/feed.ts; lib/clicks/feed.ts is its entry)
  "analytics.click_cursor": { owner: "analytics" },
  // saved Analytics views and their share links (lib/analytics/saved-views.ts)
  SavedAnalyticsView: { owner: "analytics" },
  // migrations' own record
  _prisma_migrations: { owner: "db" },
};
