"use server";
import { revalidatePath } from "next/cache";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { currentSession, currentUserId } from "@/lib/auth";
import { clientAddressFrom } from "@/lib/auth/client-address";
import { confirmEnrolment, disableSecondFactor, startEnrolment } from "@/lib/auth/two-factor";
import { formField } from "@/lib/actions/form";
import { ServiceError } from "@/lib/errors";

// The Account page's second-factor section (lib/auth/two-factor.ts holds the rules).

export type TwoFactorFormState = { error?: string; recoveryCodes?: string[] } | undefined;

async function signedIn(): Promise<number> {
  const userId = await currentUserId();
  if (!userId) redirect("/login?next=/account");
  return userId;
}

/** The Account page, at /account and inside every workspace (app/w/[slug]/account). */
function revalidateAccountPages() {
  revalidatePath("/account");
  revalidatePath("/w/[slug]/account", "page");
}

/** "Set up" (and "Start again"): a new secret, shown on the page until a code confirms it. */
export async function startTwoFactorAction(_: TwoFactorFormState): Promise<TwoFactorFormState> {
  const userId = await signedIn();
  try {
    await startEnrolment(userId);
  } catch (e) {
    if (e instanceof ServiceError) return { error: e.message };
    throw e;
  }
  // the page shows the new key (a redirect to the same page would not load it again)
  revalidateAccountPages();
  return {};
}

/** The first code turns it on; the recovery codes come back in the answer, shown this once. */
export async function confirmTwoFactorAction(_: TwoFactorFormState, form: FormData): Promise<TwoFactorFormState> {
  const session = await currentSession();
  if (!session) redirect("/login?next=/account");
  const proof = { password: formField(form, "password"), signedInAt: session.signedInAt, address: clientAddressFrom(await headers()) };
  try {
    return { recoveryCodes: (await confirmEnrolment(session.userId, { code: formField(form, "code") }, proof)).recoveryCodes };
  } catch (e) {
    if (e instanceof ServiceError) return { error: e.message };
    throw e;
  }
}

export async function disableTwoFactorAction(_: TwoFactorFormState, form: FormData): Promise<TwoFactorFormState> {
  const userId = await signedIn();
  try {
    await disableSecondFactor(userId, { code: formField(form, "code") }, clientAddressFrom(await headers()));
  } catch (e) {
    if (e instanceof ServiceError) return { error: e.message };
    throw e;
  }
  revalidateAccountPages();
  return {};
}
