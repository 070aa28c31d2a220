import { revalidatePath } from "next/cache";
import { notFound, redirect } from "next/navigation";
import { cache } from "react";
import type { z } from "zod";
import { currentUserId } from "../auth/index.ts";
import { parseInput } from "../errors.ts";
import { authorizeInstance, isInstanceAdmin, type InstancePermission } from "../instance/index.ts";
import { actionFailure, ok, type ActionResult } from "./result.ts";

// The way into the Instance page, beside workspace.ts's way into a workspace: an instance
// administrator is not a workspace role, so the check is lib/instance's authorizeInstance with a
// permission from its own table; the rest is the same (signed in, else the login page; the input
// parsed by its zod schema before any service runs; failures as ActionResults by actionFailure).

const INSTANCE_PATH = "/instance";

async function signedIn(): Promise<number> {
  const userId = await currentUserId();
  if (!userId) redirect(`/login?next=${encodeURIComponent(INSTANCE_PATH)}`);
  return userId;
}

type Options<S extends z.ZodType> = { permission: InstancePermission; schema: S };

export function instanceAction<S extends z.ZodType, T>(options: Options<S>, fn: (userId: number, input: z.output<S>) => Promise<T>) {
  return async (input: z.input<S>): Promise<ActionResult<T>> => {
    const userId = await signedIn();
    try {
      await authorizeInstance({ userId }, options.permission);
      const data = await fn(userId, parseInput(options.schema, input));
      revalidatePath(INSTANCE_PATH);
      return ok(data);
    } catch (e) {
      return actionFailure(e);
    }
  };
}

/** The Instance page starts here: signed in, and an instance administrator (else 404: the page is not advertised). */
export const instancePage = cache(async (): Promise<{ userId: number }> => {
  const userId = await signedIn();
  if (!(await isInstanceAdmin(userId))) notFound();
  return { userId };
});
