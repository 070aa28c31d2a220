import { accountDeletionPlan } from "@/lib/auth/delete-account";
import { RECENT_SIGN_IN_MINUTES } from "@/lib/auth/reauth";
import { TextLink } from "@/components/ui";
import { DeleteAccountForm } from "./delete-account-form";

/** "Delete account" on the Account page: what would happen to each workspace, then the form. */
export async function DeleteAccountSection({ userId, hasPassword }: { userId: number; hasPassword: boolean }) {
  const plan = await accountDeletionPlan(userId);
  const blocked = plan.filter((w) => w.fate === "blocked");
  const doomed = plan.filter((w) => w.fate === "deleted");
  const left = plan.filter((w) => w.fate === "left");
  return (
    <section className="space-y-3" aria-labelledby="delete-account-title">
      <h2 id="delete-account-title" className="text-base font-semibold text-red-700">
        Delete account
      </h2>
      <p className="text-sm text-slate-600">You can no longer sign in afterwards, with a password or with GitHub or Google.</p>
      {blocked.length > 0 ? (
        <div className="rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900">
          <p>You are the only owner of these workspaces, which have other members:</p>
          <ul className="mt-1 list-disc pl-5">
            {blocked.map((w) => (
              <li key={w.slug}>
                {w.name}: <TextLink href={`/w/${w.slug}/members`}>make another member owner</TextLink>
              </li>
            ))}
          </ul>
          <p className="mt-1">Transfer ownership on each workspace&apos;s Members page first (or remove its other members).</p>
        </div>
      ) : (
        <>
          {left.length > 0 && (
            <p className="text-sm text-slate-600">
              You leave {left.map((w) => w.name).join(", ")}; {left.length === 1 ? "it stays" : "they stay"} with{" "}
              {left.length === 1 ? "its" : "their"} other members, links and keys.
            </p>
          )}
          <DeleteAccountForm
            recentMinutes={RECENT_SIGN_IN_MINUTES}
            hasPassword={hasPassword}
            doomed={doomed.map((w) => ({ slug: w.slug, name: w.name, links: w.links }))}
          />
        </>
      )}
    </section>
  );
}
