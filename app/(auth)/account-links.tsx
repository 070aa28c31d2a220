import { AccountLink } from "./account-link";
import { signOutAction } from "./actions";

/** Account and Sign out, as every signed-in header shows them (after any links passed as children). */
export function AccountLinks({ children }: { children?: React.ReactNode }) {
  return (
    <>
      {children}
      <AccountLink />
      <form action={signOutAction}>
        <button className="text-sm text-slate-600 hover:text-slate-900">Sign out</button>
      </form>
    </>
  );
}
