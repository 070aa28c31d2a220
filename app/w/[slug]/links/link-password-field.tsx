"use client";
import { Field, inputClass } from "@/components/ui";
import type { LinkFormContext } from "@/lib/links/views";
import type { LinkSectionProps } from "./link-values";

/** The password (hashed on the server), or removing the one the link has. */
export function LinkPasswordField({
  v,
  set,
  id,
  err,
  described,
  upgrade,
  ctx,
  hasPassword,
}: LinkSectionProps & { ctx: LinkFormContext; hasPassword: boolean }) {
  return (
    <section className="space-y-4 rounded-lg border border-slate-200 bg-white p-5 shadow-sm">
      <h2 className="text-sm font-semibold">Password</h2>
      <Field
        label={hasPassword ? "New password" : "Password"}
        htmlFor={id("password")}
        error={err("password")}
        hint={
          !ctx.features.passwords
            ? upgrade("Password-protected links are not in your plan.")
            : hasPassword
              ? "This link has a password. Leave empty to keep it."
              : "Visitors must enter it before they are redirected. Stored hashed."
        }
      >
        <input
          id={id("password")}
          type="password"
          autoComplete="new-password"
          value={v.password}
          onChange={(e) => set("password", e.target.value)}
          disabled={!ctx.features.passwords || v.removePassword}
          className={inputClass}
          {...described("password")}
        />
      </Field>
      {hasPassword && (
        <label className="flex items-center gap-2 text-sm">
          <input
            type="checkbox"
            checked={v.removePassword}
            onChange={(e) => set("removePassword", e.target.checked)}
            className="h-4 w-4 rounded border-slate-300"
          />
          Remove the password
        </label>
      )}
    </section>
  );
}
