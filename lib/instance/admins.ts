import { z } from "zod";
import { config } from "../config/index.ts";
import { db } from "../db/client.ts";
import { parseInput, ServiceError } from "../errors.ts";

// Instance administrators: the people who run a self-hosted install, above every workspace (the
// Instance page: plans, activation, sign-up). Not a workspace role. An account is one when the admin
// CLI granted it (`instance:admin --email`, stored on the user) or when INSTANCE_ADMINS lists its
// address and the address is verified: an unverified account may belong to whoever typed the
// address first, and being first to sign up never makes anyone an administrator.

export type InstanceAdminState = {
  email: string;
  /** granted by the admin CLI */
  granted: boolean;
  /** listed in INSTANCE_ADMINS */
  listed: boolean;
  /** what the app goes by: granted, or listed with a verified address */
  instanceAdmin: boolean;
};

type UserRow = { email: string; instanceAdmin: boolean; emailVerifiedAt: Date | null };

function stateOf(u: UserRow): InstanceAdminState {
  const listed = config().INSTANCE_ADMINS.includes(u.email);
  return { email: u.email, granted: u.instanceAdmin, listed, instanceAdmin: u.instanceAdmin || (listed && u.emailVerifiedAt !== null) };
}

const userFields = { email: true, instanceAdmin: true, emailVerifiedAt: true } as const;

/** Whether the user is an instance administrator now (read on every request: a revocation counts at once). */
export async function isInstanceAdmin(userId: number): Promise<boolean> {
  const u = await db().user.findUnique({ where: { id: userId }, select: userFields });
  return u !== null && stateOf(u).instanceAdmin;
}

const grantSchema = z.object({
  email: z
    .string()
    .trim()
    .toLowerCase()
    .pipe(z.email({ message: "Enter a valid email address." }).max(254)),
  revoke: z.boolean().default(false),
});

/** The admin CLI's grant (and, with revoke, its revocation) of instance administration to an existing account. */
export async function setInstanceAdmin(input: unknown): Promise<InstanceAdminState> {
  const { email, revoke } = parseInput(grantSchema, input);
  const r = await db().user.updateManyAndReturn({ where: { email }, data: { instanceAdmin: !revoke }, select: userFields });
  if (r.length === 0) throw ServiceError.notFound(`No user with email ${email}. Create the account first (user:create, or sign up).`);
  return stateOf(r[0]);
}

/** At most this many administrators are named to members who need one. */
const CONTACTS = 5;

/** Addresses of instance administrators, for "ask ..." hints (granted first, then listed and verified). */
export async function instanceAdminContacts(): Promise<string[]> {
  const listed = config().INSTANCE_ADMINS;
  const rows = await db().user.findMany({
    where: { OR: [{ instanceAdmin: true }, { email: { in: listed }, emailVerifiedAt: { not: null } }] },
    select: { email: true },
    orderBy: [{ instanceAdmin: "desc" }, { id: "asc" }],
    take: CONTACTS,
  });
  return rows.map((r) => r.email);
}

/** Every instance administrator (bounded: the list is for the CLI and the Instance page). */
export async function listInstanceAdmins(): Promise<InstanceAdminState[]> {
  const listed = config().INSTANCE_ADMINS;
  const rows = await db().user.findMany({
    where: { OR: [{ instanceAdmin: true }, { email: { in: listed } }] },
    select: userFields,
    orderBy: { id: "asc" },
    take: 200,
  });
  return rows.map(stateOf);
}
