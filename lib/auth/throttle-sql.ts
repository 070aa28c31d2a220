import { db } from "../db/client.ts";

// The statements behind the sign-in and sign-up limits (lib/auth/throttle.ts), one named function
// each. A key's window starts at its first attempt and lasts `windowSeconds`; an attempt is taken
// only while fewer than `limit` were taken in the window, in one statement, so parallel requests
// and several app processes can never take more than the limit.

/** Takes one attempt under `key`: null when taken, else the seconds until the window ends. */
export async function takeAttempt(key: string, limit: number, windowSeconds: number): Promise<number | null> {
  const taken = await db().$queryRaw<{ count: number }[]>`
    insert into "AuthThrottle" (key, "startedAt", count) values (${key}, now(), 1)
    on conflict (key) do update set
      "startedAt" = case when "AuthThrottle"."startedAt" <= now() - make_interval(secs => ${windowSeconds}::int) then now() else "AuthThrottle"."startedAt" end,
      count = case when "AuthThrottle"."startedAt" <= now() - make_interval(secs => ${windowSeconds}::int) then 1 else "AuthThrottle".count + 1 end
    where "AuthThrottle"."startedAt" <= now() - make_interval(secs => ${windowSeconds}::int) or "AuthThrottle".count < ${limit}::int
    returning count`;
  if (taken.length > 0) return null;
  const [row] = await db().$queryRaw<{ seconds: number }[]>`
    select greatest(1, ceil(extract(epoch from ("startedAt" + make_interval(secs => ${windowSeconds}::int) - now()))))::int as seconds
    from "AuthThrottle" where key = ${key}`;
  return row?.seconds ?? windowSeconds;
}

/** Gives an attempt back (a sign-in that turned out right, or was refused by another key). */
export async function giveBackAttempt(key: string): Promise<void> {
  await db().$executeRaw`update "AuthThrottle" set count = greatest(count - 1, 0) where key = ${key}`;
}

/** Forgets windows older than `windowSeconds` (the longest window in use). */
export async function pruneAttempts(windowSeconds: number): Promise<number> {
  return db().$executeRaw`delete from "AuthThrottle" where "startedAt" <= now() - make_interval(secs => ${windowSeconds}::int)`;
}

/** Forgets the windows of `keys` (a password reset by mail clears the sign-in failures counted against the account). */
export async function forgetAttempts(keys: string[]): Promise<void> {
  await db().$executeRaw`delete from "AuthThrottle" where key = any(${keys}::text[])`;
}
