import { parseInput, ServiceError } from "../errors.ts";
import { addMember } from "../members/index.ts";
import { addDomainBySlug, verifyDomainBySlug } from "../domains/index.ts";
import { isId } from "../ids.ts";
import { createUser } from "../auth/users.ts";
import { authorize, createWorkspace, setActive, setPlan, type Permission } from "../workspaces/index.ts";

// The admin CLI's commands (docs/operations.md "Admin CLI"). Each takes the parsed flags and returns the
// JSON object to print; failures throw a ServiceError, printed as { error, message } (cli.ts).
export type Flags = Record<string, string | true>;
export type Command = {
  flags: string[];
  run: (f: Flags) => Promise<unknown>;
  /** works on the embedded database's files itself: the CLI neither starts the database nor builds a runtime */
  ownDatabase?: true;
};

function str(f: Flags, name: string, required = true): string | undefined {
  const v = f[name];
  if (v === undefined) {
    if (required) throw ServiceError.validation(`Missing --${name}.`);
    return undefined;
  }
  if (v === true) throw ServiceError.validation(`--${name} needs a value.`);
  return v;
}

/** A flag without a value (--revoke): present or not. */
function bool(f: Flags, name: string): boolean {
  const v = f[name];
  if (v === undefined) return false;
  if (v !== true) throw ServiceError.validation(`--${name} takes no value.`);
  return true;
}

/** The workspace named by --slug, as the operator (above every role; lib/workspaces/access.ts). */
async function workspaceOf(f: Flags, permission: Permission) {
  return (await authorize("operator", str(f, "slug")!, permission)).workspace;
}

/** --id as a row id: digits only, within the database's id range. */
function id(f: Flags, what: string): number {
  const raw = str(f, "id")!;
  const n = /^\d{1,10}$/.test(raw) ? Number(raw) : NaN;
  if (!isId(n)) throw ServiceError.validation(`--id must be ${what} id (a positive integer).`);
  return n;
}

export const commands: Record<string, Command> = {
  "user:create": {
    flags: ["email", "password", "name"],
    run: (f) => createUser({ email: str(f, "email"), password: str(f, "password"), name: str(f, "name", false) }),
  },
  "user:second-factor-off": {
    flags: ["email"],
    run: async (f) => {
      const { removeSecondFactorByOperator } = await import("../auth/two-factor.ts");
      return removeSecondFactorByOperator(str(f, "email"));
    },
  },
  // A one-time "forgot password?" link to pass on by hand (installs without mail): { email, url, expiresAt }.
  "user:reset-link": {
    flags: ["email"],
    run: async (f) => {
      const { createResetLink } = await import("../auth/password-reset.ts");
      return createResetLink({ email: str(f, "email") });
    },
  },
  "workspace:create": {
    flags: ["slug", "name", "owner", "plan"],
    run: (f) => createWorkspace({ slug: str(f, "slug"), name: str(f, "name"), owner: str(f, "owner"), plan: str(f, "plan", false) }),
  },
  "workspace:plan": { flags: ["slug", "plan"], run: (f) => setPlan(str(f, "slug")!, str(f, "plan")!) },
  "workspace:deactivate": { flags: ["slug"], run: (f) => setActive(str(f, "slug")!, false) },
  "workspace:activate": { flags: ["slug"], run: (f) => setActive(str(f, "slug")!, true) },
  // instance administrators (lib/instance): grant with --email, take back with --revoke as well
  "instance:admin": {
    flags: ["email", "revoke"],
    run: async (f) => {
      const { setInstanceAdmin } = await import("../instance/admins.ts");
      return setInstanceAdmin({ email: str(f, "email"), revoke: bool(f, "revoke") });
    },
  },
  "instance:admins": {
    flags: [],
    run: async () => {
      const { listInstanceAdmins } = await import("../instance/admins.ts");
      return { admins: await listInstanceAdmins() };
    },
  },
  // the one-time link that makes the signed-in account opening it the first instance administrator
  "instance:setup-link": {
    flags: [],
    run: async () => {
      const { createSetupLink } = await import("../instance/setup-link.ts");
      return createSetupLink();
    },
  },
  // who may sign up: open, invite or closed (what the Instance page sets)
  "instance:signup": {
    flags: ["mode"],
    run: async (f) => {
      const { setSignupMode } = await import("../instance/signup.ts");
      return setSignupMode({ mode: str(f, "mode") });
    },
  },
  "member:add": {
    flags: ["slug", "email", "role"],
    run: async (f) => ({ member: await addMember({ slug: str(f, "slug"), email: str(f, "email"), role: str(f, "role") }) }),
  },
  // --name is required: the keys list says what uses each key
  "key:create": {
    flags: ["slug", "name", "expires-in-days"],
    run: async (f) => {
      const { createApiKey } = await import("../keys/index.ts");
      const ws = await workspaceOf(f, "keys.manage");
      const k = await createApiKey(ws, { name: str(f, "name")!, expiresInDays: str(f, "expires-in-days", false) ?? null });
      return { id: k.id, key: k.key };
    },
  },
  "key:revoke": {
    flags: ["slug", "id"],
    run: async (f) => {
      const { revokeApiKey } = await import("../keys/index.ts");
      const ws = await workspaceOf(f, "keys.manage");
      return revokeApiKey(ws, id(f, "a key"));
    },
  },
  "domain:add": { flags: ["slug", "host"], run: (f) => addDomainBySlug(str(f, "slug")!, str(f, "host")!) },
  "domain:verify": { flags: ["slug", "host"], run: (f) => verifyDomainBySlug(str(f, "slug")!, str(f, "host")!) },
  "webhook:create": {
    // --folders, --tags or --links: the scope of link.clicked (none: all links)
    flags: ["slug", "url", "events", "folders", "tags", "links"],
    run: async (f) => {
      const { createEndpoint, parseEventList } = await import("../webhooks/index.ts");
      const ws = await workspaceOf(f, "webhooks.manage");
      const list = (name: string) =>
        str(f, name, false)
          ?.split(",")
          .filter((s) => s.trim() !== "");
      const clickScope = { folders: list("folders"), tags: list("tags"), links: list("links") };
      const e = await createEndpoint(ws.id, { url: str(f, "url"), events: parseEventList(str(f, "events", false)), clickScope });
      return { id: e.id, url: e.url, secret: e.secret, events: e.events };
    },
  },
  // embedded database only (lib/db/backup): with DATABASE_URL set, both refuse
  backup: {
    flags: ["out"],
    ownDatabase: true,
    run: async (f) => {
      const { backupEmbeddedDatabase } = await import("../db/backup/index.ts");
      return backupEmbeddedDatabase(str(f, "out")!);
    },
  },
  restore: {
    flags: ["from"],
    ownDatabase: true,
    run: async (f) => {
      const { restoreEmbeddedDatabase } = await import("../db/backup/index.ts");
      return restoreEmbeddedDatabase(str(f, "from")!);
    },
  },
  "webhook:test": {
    flags: ["id"],
    run: async (f) => {
      const { sendTestEvent } = await import("../webhooks/index.ts");
      const r = await sendTestEvent(id(f, "an endpoint"));
      if (!r.attempted) throw ServiceError.conflict(r.message ?? "Nothing was sent.");
      return { delivered: r.delivered, status: r.statusCode };
    },
  },
};

export { str };
