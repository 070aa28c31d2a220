"use server";
import { AuthError } from "next-auth";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { signIn, signInErrorMessage, signOut } from "@/lib/auth";
import { clientAddressFrom } from "@/lib/auth/client-address";
import { safeNextPath } from "@/lib/auth/next-path";
import { signUpFrom } from "@/lib/auth/signup";
import { ServiceError } from "@/lib/errors";

export type FormState = { error?: string; email?: string } | undefined;

export async function signInAction(_: FormState, form: FormData): Promise<FormState> {
  const email = String(form.get("email") ?? "");
  const password = String(form.get("password") ?? "");
  if (!email.trim() || !password) return { error: "Enter your email and password.", email };
  try {
    await signIn("credentials", { email, password, redirect: false });
  } catch (e) {
    if (e instanceof AuthError) return { error: signInErrorMessage(e, "Wrong email or password."), email };
    throw e;
  }
  redirect(safeNextPath(form.get("next")));
}

export async function signUpAction(_: FormState, form: FormData): Promise<FormState> {
  const email = String(form.get("email") ?? "");
  const password = String(form.get("password") ?? "");
  const name = String(form.get("name") ?? "");
  let slug: string;
  try {
    const result = await signUpFrom(clientAddressFrom(await headers()), { email, password, name: name || undefined });
    slug = result.workspace.slug;
  } catch (e) {
    if (e instanceof ServiceError) return { error: e.message, email };
    throw e;
  }
  try {
    await signIn("credentials", { email, password, redirect: false });
  } catch (e) {
    if (e instanceof AuthError) return { error: "Your account was created, but signing in failed. Try signing in.", email };
    throw e;
  }
  const next = safeNextPath(form.get("next"));
  redirect(next !== "/" ? next : `/w/${slug}`);
}

/** Ends every session of the user (see lib/auth/session.ts), not only this browser's cookie. */
export async function signOutAction() {
  await signOut({ redirect: false });
  redirect("/login");
}

export async function oauthSignInAction(form: FormData) {
  const provider = String(form.get("provider"));
  await signIn(provider, { redirectTo: safeNextPath(form.get("next")) });
}
