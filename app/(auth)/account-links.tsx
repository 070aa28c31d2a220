import Link from "next/link";
import { signOutAction } from "./actions";

/** Account and Sign out, as every signed-in header shows them (after any links passed as children). */
export function AccountLinks({ children }: { children?: React.ReactNode }) {
  return (
    <>
      {children}
      <Link href="/account" className="text-sm text-slate-600 hover:text-slate-900">
        Account
      </Link>
      <form action={signOutAction}>
        <button className="text-sm text-slate-600 hover:text-slate-900">Sign out</button>
      </form>
    </>
  );
}
