import { Secret, TOTP } from "otpauth";

// Turns a user's second factor on in this process (the app, in its own process, decrypts with the
// same AUTH_SECRET), on the injectable clock (lib/clock.ts) set an hour back: the code step the
// enrolment spends lies before every step a sign-in afterwards uses, whatever second it is now. (A
// code made for "30 s ago" was refused whenever a step boundary fell between making and checking it.)

/** What proves the account holder at the enrolment, given its instant (unix ms): the password, or a sign-in just before. */
export type EnrolProof = (at: number) => { password: string; signedInAt: number | null };

/** Enrols `userId` (password or recent sign-in: `proof`, given the enrolment's instant); returns the secret, for codes. */
export async function enrolSecondFactor(
  userId: number,
  proof: EnrolProof,
): Promise<{ secret: string; totp: TOTP; recoveryCodes: string[] }> {
  const clock = await import("../../lib/clock.ts");
  const tf = await import("../../lib/auth/two-factor.ts");
  const at = Date.now() - 3_600_000;
  clock.setClock(() => at);
  try {
    await tf.startEnrolment(userId);
    const status = await tf.twoFactorStatus(userId);
    if (status.state !== "pending") throw new Error(`enrolment is ${status.state}`);
    const totp = new TOTP({ secret: Secret.fromBase32(status.secret) });
    const { recoveryCodes } = await tf.confirmEnrolment(userId, { code: totp.generate({ timestamp: at }) }, proof(at));
    return { secret: status.secret, totp, recoveryCodes };
  } finally {
    clock.setClock(null);
  }
}
