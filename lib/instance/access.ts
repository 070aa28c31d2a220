import { ServiceError } from "../errors.ts";
import { isInstanceAdmin } from "./admins.ts";

// What an instance administrator may do, apart from workspace roles (lib/workspaces/access.ts):
// the Instance page and its actions (lib/actions/instance.ts) go through authorizeInstance. The
// admin CLI's operator holds every instance permission.

const REFUSAL = "Only an instance administrator can do this.";

export const INSTANCE_PERMISSIONS = {
  /** See the Instance page: every workspace with its plan, usage and state. */
  "instance.view": { refusal: REFUSAL },
  /** Change a workspace's plan, deactivate or activate it, set who may sign up. */
  "instance.manage": { refusal: REFUSAL },
} as const satisfies Record<string, { refusal: string }>;

export type InstancePermission = keyof typeof INSTANCE_PERMISSIONS;

/** A signed-in user, or the operator running the admin CLI. */
export type InstanceActor = { userId: number } | "operator";

/** Throws forbidden unless the actor holds the instance permission. */
export async function authorizeInstance(actor: InstanceActor, permission: InstancePermission): Promise<void> {
  if (actor === "operator") return;
  if (!(await isInstanceAdmin(actor.userId))) throw ServiceError.forbidden(INSTANCE_PERMISSIONS[permission].refusal);
}
