// Import layering, checked by `npm run check:layers` and by `npm test`'s typecheck stage.
// Imports point down only:
//
//   entries   app/ (pages, route handlers, server actions), components/, inngest/, server.ts,
//             instrumentation.ts (Next's error hook), lib/admin (the CLI), lib/runtime.ts (what a
//             process runs: built by server.ts and the CLI)
//   adapters  lib/api (the /api/v1 wrapper), lib/actions (the server action wrapper)
//   services  every other folder of lib/: links domains members keys webhooks redirects clicks analytics
//             workspaces auth tags csv events plans ratelimit; they may use one another, except
//             for the directions forbidden below (a click goes redirects -> clicks -> analytics, events)
//   base      lib/db lib/net lib/mail lib/config lib/http lib/log lib/metrics and lib/clock.ts lib/errors.ts
//             lib/ids.ts lib/background.ts lib/registry.ts lib/keys/random.ts: they import only one another
//
// tests/ is not checked: a test may import anything. Type-only imports count like any other
// (they still tie one layer to another), except for cycles (see no-circular).

/** The base layer: what every service may use, and which uses no service. */
const BASE = [
  "^lib/(db|net|mail|config|http|log|metrics)/",
  "^lib/(clock|errors|ids|background|registry)\\.ts$",
  // the random alphabet of keys, link codes and webhook secrets; the rest of lib/keys is a service
  "^lib/keys/random\\.ts$",
];

/** The folders of lib/ that are not service areas (entries, adapters, base). */
const NOT_SERVICES = "^lib/(admin|api|actions|db|net|mail|config|http|log|metrics)$";

/**
 * Areas that still import one another in a circle, so no-area-cycle skips cycles among them only:
 * - auth <-> workspaces, truly mutual: a sign-up makes the account's first workspace in the
 *   account's transaction (auth/users.ts -> createFirstWorkspace in workspaces/index.ts), and a
 *   workspace names its owner by account address (workspaces/index.ts -> auth/schemas.ts) and asks
 *   whether a member has a second factor (workspaces/second-factor.ts -> auth/two-factor.ts).
 * Taking an area out of this list makes the check hold it to the rule.
 */
const ENTANGLED = "^lib/(auth|workspaces)$";

/** @type {import("dependency-cruiser").IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "lib-imports-no-entry",
      comment:
        "lib/ is shared by the web app, the API, the CLI and the background jobs: it must not depend on one of them " +
        "(app/, components/, inngest/, server.ts, instrumentation.ts). lib/webhooks has its own Inngest client (inngest-client.ts); " +
        "inngest/functions uses lib/webhooks, not the other way round.",
      severity: "error",
      from: { path: "^lib/" },
      to: { path: ["^app/", "^components/", "^inngest/", "^server\\.ts$", "^instrumentation\\.ts$"] },
    },
    {
      name: "components-import-no-app",
      comment: "components/ are the building blocks of app/'s pages; a page is never a building block of a component.",
      severity: "error",
      from: { path: "^components/" },
      to: { path: "^app/" },
    },
    {
      name: "admin-is-an-entry",
      comment: "lib/admin is the CLI: it calls the services, nothing calls it.",
      severity: "error",
      from: { pathNot: "^lib/admin/" },
      to: { path: "^lib/admin/" },
    },
    {
      name: "runtime-is-an-entry",
      comment:
        "lib/runtime.ts builds what a process runs (pools, click pipeline, caches, background jobs) for server.ts " +
        "and the CLI; an area importing it would depend on every other area.",
      severity: "error",
      from: { pathNot: ["^server\\.ts$", "^lib/admin/"] },
      to: { path: "^lib/runtime\\.ts$" },
    },
    {
      name: "adapters-only-from-entries",
      comment:
        "lib/api and lib/actions turn requests into service calls (auth, permission, zod, error body); services " +
        "are below them and are called the same way from the API, the app and the CLI.",
      severity: "error",
      from: { path: "^lib/([^/]+)/" },
      to: { path: "^lib/(api|actions)/", pathNot: "^lib/$1/" },
    },
    {
      name: "links-not-redirects",
      comment:
        "Links do not import redirects: lib/redirects serves the short links and reads lib/links, so what both " +
        "need (routing rules, code shapes) lives in lib/links or below.",
      severity: "error",
      from: { path: "^lib/links/" },
      to: { path: "^lib/redirects/" },
    },
    {
      name: "analytics-not-redirects-or-clicks",
      comment:
        "Analytics does not import redirects or clicks: lib/clicks records the redirect's clicks into lib/analytics, " +
        "so the click tables' SQL and the batches live in lib/analytics or below.",
      severity: "error",
      from: { path: "^lib/analytics/" },
      to: { path: "^lib/(redirects|clicks)/" },
    },
    {
      name: "redirects-only-from-entries",
      comment:
        "lib/redirects is the short-link side of server.ts and sits on top of the services: no other area " +
        "imports it (links and analytics have rules of their own), lib/clicks included: the redirect hands its " +
        "clicks down to lib/clicks, never the other way. A helper both sides need belongs in the base layer.",
      severity: "error",
      from: { path: "^lib/", pathNot: ["^lib/(redirects|links|analytics|admin)/", "^lib/runtime\\.ts$"] },
      to: { path: "^lib/redirects/" },
    },
    {
      name: "clicks-only-from-redirects",
      comment:
        "lib/clicks is what happens to a click after the redirect answered (the pipeline, its writer, the click " +
        "counters): the redirect (lib/redirects), the runtime that builds the pipeline and the CLI use it; the areas " +
        "it writes through (analytics, events) and the rest of lib/ never import it.",
      severity: "error",
      from: { path: "^lib/", pathNot: ["^lib/(clicks|redirects|admin)/", "^lib/runtime\\.ts$"] },
      to: { path: "^lib/clicks/" },
    },
    {
      name: "events-not-webhooks",
      comment:
        "Events hand off through their afterCommit hook: lib/events writes the event and its deliveries in the " +
        "change's transaction, and what happens after commit (the webhook hand-off) is given to it, never imported.",
      severity: "error",
      from: { path: "^lib/events/" },
      to: { path: "^lib/webhooks/" },
    },
    {
      name: "webhooks-only-from-entries",
      comment:
        "lib/webhooks delivers events after they are committed: services record events (lib/events) and never " +
        "call webhooks directly (lib/events has a rule of its own).",
      severity: "error",
      from: { path: "^lib/", pathNot: ["^lib/(webhooks|events|admin)/", "^lib/runtime\\.ts$"] },
      to: { path: "^lib/webhooks/" },
    },
    {
      name: "base-imports-only-base",
      comment:
        "The base layer (lib/db, net, mail, config, http, log, metrics; lib/clock, errors, ids, background, registry; lib/keys/random) is what " +
        "every service builds on: if it imported a service, that service could no longer use it without a cycle.",
      severity: "error",
      from: { path: BASE },
      to: { path: "^lib/", pathNot: BASE },
    },
    {
      name: "no-circular",
      comment:
        "A cycle of runtime imports makes start-up order matter (a value read before its module ran is " +
        "undefined). A cycle that goes through an `import type` is erased by the compiler and allowed here; " +
        "between areas no-area-cycle still forbids it.",
      severity: "error",
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ["type-only"] } },
    },
    {
      name: "no-area-cycle",
      comment:
        "Areas (folders of lib/) form a hierarchy: nothing an area imports leads back to it. The chain above " +
        "names the folders; the import to undo is usually the newest one between two of them. Cycles only among " +
        "ENTANGLED (.dependency-cruiser.cjs) are not reported yet.",
      severity: "error",
      scope: "folder",
      // Service areas only: a cycle through an entry, an adapter or the base layer needs an import that
      // one of the rules above reports by file, so it is not reported here a second (and tenth) time.
      from: { path: "^lib/[^/]+$", pathNot: [ENTANGLED, NOT_SERVICES] },
      to: { path: "^lib/[^/]+$", pathNot: NOT_SERVICES, circular: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    // Prisma's generated client imports only itself and @prisma/*.
    exclude: { path: "^lib/db/generated/" },
    tsConfig: { fileName: "tsconfig.json" },
    // keep `import type` dependencies: a type-only import across layers is still a dependency
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".tsx", ".js", ".mjs", ".cjs", ".d.ts"],
    },
  },
};
