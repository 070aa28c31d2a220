import { expect, test } from "@playwright/test";
import { admin, appUrl, caughtMail, PASSWORD, shot, signUp, uniqueEmail, waitForMail } from "./support.ts";

// In the browser: the invitation page's sign-in is limited like the login form; a new account sees
// a quiet "verify your email" notice until it follows the mailed link; an invitation to an address
// someone else registered first gives nobody that account.

test("the invitation page's sign-in stops after 10 failures, the right password too", async ({ page, browser }, testInfo) => {
  const { slug } = await signUp(page);
  const invitee = uniqueEmail("limited-invitee");
  await admin("user:create", { email: invitee, password: PASSWORD });
  await page.goto(`/w/${slug}/members`);
  await page.getByRole("button", { name: "Invite member" }).click();
  const dialog = page.getByRole("dialog", { name: "Add people to the workspace" });
  await dialog.getByLabel("Email").fill(invitee);
  await dialog.getByRole("button", { name: "Send invitation" }).click();
  await page.getByRole("dialog", { name: "Invitation sent" }).getByRole("button", { name: "Done" }).click();
  const link = /https?:\/\/\S+\/invite\/[A-Za-z0-9_-]+/.exec((await waitForMail(invitee)).text)![0];

  const other = await browser.newContext({ baseURL: appUrl });
  const guest = await other.newPage();
  await guest.goto(link);
  await guest.getByRole("link", { name: "I have an account" }).click();
  // The sign-in form replaces the sign-up form: type only once it is there.
  await expect(guest.getByRole("button", { name: "Sign in and join" })).toBeVisible();
  for (let i = 0; i < 10; i++) {
    await guest.getByLabel("Password").fill(`guess number ${i}`);
    await guest.getByRole("button", { name: "Sign in and join" }).click();
    await expect(guest.getByRole("alert").filter({ hasText: "Wrong password." })).toBeVisible();
    // The next click must not see this answer's alert: wait for the form to be ready again.
    await expect(guest.getByRole("button", { name: "Sign in and join" })).toBeEnabled();
  }
  await guest.getByLabel("Password").fill(PASSWORD);
  await guest.getByRole("button", { name: "Sign in and join" }).click();
  await expect(guest.getByRole("alert").filter({ hasText: "Too many attempts. Try again in 15 minutes." })).toBeVisible();
  await shot(guest, testInfo, "invite-too-many");
  await expect(guest).toHaveURL(/\/invite\//);
  await other.close();
});

test("a new account works at once, sees a verify-your-email notice, resends, and verifies by the mailed link", async ({
  page,
}, testInfo) => {
  const { email, slug } = await signUp(page);
  const notice = page.getByText("Verify your email: we sent a link to");
  await expect(notice).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Workspace" }).getByRole("link", { name: "Links" })).toBeVisible();
  await shot(page, testInfo, "verify-notice");

  const first = await waitForMail(email);
  expect(first.subject).toBe("Confirm your email address for Linkhop");
  await page.getByRole("button", { name: "Resend" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Sent again." })).toBeVisible();

  const link = /https?:\/\/\S+\/account\/verify\/\S+/.exec(first.text)![0];
  await page.goto(new URL(link).pathname);
  await expect(page.getByRole("heading", { name: "Email address confirmed" })).toBeVisible();
  await page.goto(`/w/${slug}`);
  await expect(page.getByRole("navigation", { name: "Workspace" })).toBeVisible();
  await expect(notice).toHaveCount(0);
});

test("an invitation to a squatted address shows the same page as any other and gives nobody the account", async ({
  page,
  browser,
}, testInfo) => {
  const victim = uniqueEmail("squatted");
  const squatter = await browser.newContext({ baseURL: appUrl });
  await signUp(await squatter.newPage(), { email: victim });
  await squatter.close();

  const { slug } = await signUp(page, { name: "Tara Team" });
  await page.goto(`/w/${slug}/members`);
  await page.getByRole("button", { name: "Invite member" }).click();
  const dialog = page.getByRole("dialog", { name: "Add people to the workspace" });
  await dialog.getByLabel("Email").fill(victim);
  await dialog.getByRole("button", { name: "Send invitation" }).click();
  await page.getByRole("dialog", { name: "Invitation sent" }).getByRole("button", { name: "Done" }).click();
  // The squatter's sign-up mailed a verification link to the same address: wait for the invitation.
  let inviteText = "";
  await expect
    .poll(
      async () =>
        (inviteText =
          (await caughtMail()).find((m) => m.to.includes(victim) && m.subject === "Invitation to join a workspace on Linkhop")?.text ?? ""),
    )
    .not.toBe("");
  const link = /https?:\/\/\S+\/invite\/[A-Za-z0-9_-]+/.exec(inviteText)![0];

  const visitor = await browser.newContext({ baseURL: appUrl });
  const guest = await visitor.newPage();
  await guest.goto(link);
  await expect(guest.getByText("Create your Linkhop account to accept.")).toBeVisible();
  await expect(guest.getByText(/never confirmed|Set password/)).toHaveCount(0);
  await shot(guest, testInfo, "invite-squatted");
  await guest.getByLabel("Password").fill("someone else's password");
  await guest.getByRole("button", { name: "Create account and join" }).click();
  await expect(guest.getByRole("alert").filter({ hasText: "An account with this email already exists" })).toBeVisible();
  await expect(guest).toHaveURL(/\/invite\//);
  await visitor.close();
});
