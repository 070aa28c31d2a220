"use server";
import { redirect } from "next/navigation";
import { currentUserId } from "@/lib/auth";
import { formField } from "@/lib/actions/form";
import { ServiceError } from "@/lib/errors";
import { redeemSetupLink } from "@/lib/instance/setup-link";

export type SetupFormState = { error?: string } | undefined;

/** The signed-in account takes the setup link and becomes the instance administrator (lib/instance/setup-link.ts). */
export async function becomeOperatorAction(_: SetupFormState, form: FormData): Promise<SetupFormState> {
  const userId = await currentUserId();
  if (!userId) return { error: "Sign in first, then open the setup link again." };
  try {
    await redeemSetupLink({ userId, token: formField(form, "token") });
  } catch (e) {
    if (e instanceof ServiceError) return { error: e.message };
    throw e;
  }
  redirect("/instance");
}
