import { z } from "zod";

// The account fields as every form and command takes them (sign-up, the admin CLI, password reset
// and change, change of email, invitations, a workspace's owner). Kept apart from users.ts, which
// imports lib/workspaces: lib/workspaces and lib/members parse addresses with these too.

export const emailSchema = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.email({ message: "Enter a valid email address." }).max(254));
export const passwordSchema = z
  .string()
  .min(8, "Use at least 8 characters for the password.")
  .max(200, "Use at most 200 characters for the password.");

export const signUpSchema = z.object({
  email: emailSchema,
  password: passwordSchema,
  name: z.string().trim().max(80).optional(),
});
