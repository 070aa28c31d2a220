import { revalidatePath } from "next/cache";
import { headers } from "next/headers";
import { notFound, redirect } from "next/navigation";
import { cache } from "react";
import type { z } from "zod";
import { currentUserId } from "../auth/index.ts";
import { safeNextPath } from "../auth/next-path.ts";
import { pagePathFrom } from "../auth/page-path.ts";
import { parseInput, ServiceError } from "../errors.ts";
import {
  assertSecondFactor,
  authorize,
  can,
  isSecondFactorRefusal,
  membershipOf,
  type Permission,
  type WorkspaceContext,
} from "../workspaces/index.ts";
import { actionFailure, ok, type ActionResult } from "./result.ts";

// The one way into a workspace from the app. A page calls workspacePage(slug); a server action is
// made with workspaceAction({ permission, schema, revalidate }, fn): signed in (else to the login
// page), a member (else 404, so a workspace's existence is not revealed), holding the permission
// (lib/workspaces/access.ts; else a forbidden result), the arguments parsed by the zod schema
// (else a validation result, before anything reaches a service), then fn, then the pages to refresh.

export type ActionContext = WorkspaceContext & { slug: string; userId: number };

/** A page of the workspace, relative to /w/<slug> ("/links"); layout: also the pages below it. */
export type Revalidate = string | { path: string; layout: true };

type Options<S extends z.ZodType, T> = {
  permission: Permission;
  schema: S;
  // `data` is typed unknown: a parameter of type T here would fix T before fn is read.
  revalidate?: Revalidate | ((input: z.output<S>, data: unknown) => Revalidate | null);
  /** the form fields that show their own errors (see actionFailure) */
  fields?: readonly string[];
};

/** The signed-in user, else to the login page, which brings the visitor back to this very page. */
async function signedIn(slug: string): Promise<number> {
  const userId = await currentUserId();
  if (!userId) {
    const back = safeNextPath(pagePathFrom(await headers()), `/w/${slug}`);
    redirect(`/login?next=${encodeURIComponent(back)}`);
  }
  return userId;
}

export function workspaceAction<S extends z.ZodType, T>(
  options: Options<S, T>,
  fn: (ctx: ActionContext, input: z.output<S>) => Promise<T>,
) {
  return async (slug: string, input: z.input<S>): Promise<ActionResult<T>> => {
    if (typeof slug !== "string") notFound();
    const userId = await signedIn(slug);
    let ctx: ActionContext;
    try {
      ctx = { ...(await authorize({ userId }, slug, options.permission)), slug, userId };
    } catch (e) {
      if (e instanceof ServiceError && e.code === "not_found") notFound();
      return actionFailure(e);
    }
    try {
      const parsed = parseInput(options.schema, input);
      const data = await fn(ctx, parsed);
      const target = typeof options.revalidate === "function" ? options.revalidate(parsed, data) : options.revalidate;
      if (target !== undefined && target !== null) {
        const { path, layout } = typeof target === "string" ? { path: target, layout: false } : target;
        if (layout) revalidatePath(`/w/${slug}${path}`, "layout");
        else revalidatePath(`/w/${slug}${path}`);
      }
      return ok(data);
    } catch (e) {
      return actionFailure(e, options.fields);
    }
  };
}

export type WorkspacePage = WorkspaceContext & { userId: number; membershipId: number; can: (permission: Permission) => boolean };

/**
 * Every workspace page starts here: signed in and a member (else 404), with a second factor when
 * the workspace requires one (else the page that says how to set one up); `can` tells what to show.
 */
export const workspacePage = cache(async (slug: string): Promise<WorkspacePage> => {
  const userId = await signedIn(slug);
  const m = await membershipOf(userId, slug);
  if (!m) notFound();
  try {
    await assertSecondFactor(m.workspace, userId);
  } catch (e) {
    if (isSecondFactorRefusal(e)) redirect(`/account/two-factor-required?workspace=${encodeURIComponent(slug)}`);
    throw e;
  }
  return { ...m, userId, can: (permission: Permission) => can(m.role, permission) };
});
