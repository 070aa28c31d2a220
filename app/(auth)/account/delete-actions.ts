"use server";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { currentSession, signOut } from "@/lib/auth";
import { clientAddressFrom } from "@/lib/auth/client-address";
import { deleteAccount } from "@/lib/auth/delete-account";
import { formField } from "@/lib/actions/form";
import { ServiceError } from "@/lib/errors";

export type DeleteAccountState = { error?: string } | undefined;

/** Deletes the account (lib/auth/delete-account.ts), clears this browser's cookie, then the login page. */
export async function deleteAccountAction(_: DeleteAccountState, form: FormData): Promise<DeleteAccountState> {
  const session = await currentSession();
  if (!session) redirect("/login?next=/account");
  try {
    await deleteAccount(
      session.userId,
      { password: formField(form, "password"), confirm: form.getAll("confirm").filter((v): v is string => typeof v === "string") },
      { signedInAt: session.signedInAt, address: clientAddressFrom(await headers()) },
    );
  } catch (e) {
    if (e instanceof ServiceError) return { error: e.message };
    throw e;
  }
  await signOut({ redirectTo: "/login?deleted=1" });
}
