import { secondaryButtonClass } from "@/components/ui";
import { signOutEverywhereAction } from "./sessions-actions";

/** "Sessions" on the Account page. A plain form: it works without JavaScript. */
export function SignOutEverywhere() {
  return (
    <form action={signOutEverywhereAction} className="space-y-3" aria-labelledby="sessions-title">
      <h2 id="sessions-title" className="text-base font-semibold">
        Sessions
      </h2>
      <p className="text-sm text-slate-600">
        Signed in on a computer you no longer use, or lost a phone? This signs your account out on every browser and device, this one
        included.
      </p>
      <button type="submit" className={`${secondaryButtonClass} w-full`}>
        Sign out everywhere
      </button>
    </form>
  );
}
