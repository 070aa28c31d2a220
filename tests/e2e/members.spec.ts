import { expect, test } from "@playwright/test";
import { admin, PASSWORD, shot, signUp, uniqueEmail, waitForMail } from "./support.ts";

// Invite a member by email; the invitee accepts in a second browser context with the link from
// the mail that a real SMTP server on loopback received. Then roles and removal.

test("invite a member by email, accept in another browser, manage roles", async ({ page, browser }, testInfo) => {
  const { slug } = await signUp(page, { name: "Olivia Owner" });
  await page.getByRole("navigation", { name: "Workspace" }).getByRole("link", { name: "Members" }).click();
  await expect(page.getByRole("heading", { name: "Members" })).toBeVisible();
  await expect(page.getByText("No pending invitations")).toBeVisible();
  await shot(page, testInfo, "members");

  const invitee = uniqueEmail("invitee");
  await page.getByRole("button", { name: "Invite member" }).click();
  const dialog = page.getByRole("dialog", { name: "Add people to the workspace" });
  await expect(dialog.getByLabel("Email")).toBeFocused();
  await dialog.getByLabel("Email").fill("not-an-email");
  await dialog.getByRole("button", { name: "Send invitation" }).click();
  await expect(dialog.getByRole("alert")).toContainText("Enter a valid email address.");
  await dialog.getByLabel("Email").fill(invitee);
  await dialog.getByLabel("Role").selectOption("admin");
  await shot(page, testInfo, "members-invite-dialog");
  await dialog.getByRole("button", { name: "Send invitation" }).click();
  const sent = page.getByRole("dialog", { name: "Invitation sent" });
  await expect(sent).toContainText(`We emailed ${invitee}`);
  await shot(page, testInfo, "members-invitation-sent");
  await sent.getByRole("button", { name: "Done" }).click();
  await expect(page.getByText(invitee, { exact: true })).toBeVisible();
  await expect(page.getByRole("button", { name: `Revoke invitation for ${invitee}` })).toBeVisible();

  // The mail, as the real SMTP server received it.
  const mail = await waitForMail(invitee);
  expect(mail.subject).toBe("Invitation to join a workspace on Linkhop");
  expect(mail.text).toContain(`invited ${invitee} to the workspace "Olivia Owner's workspace" on Linkhop`);
  const link = /https?:\/\/\S+\/invite\/[A-Za-z0-9_-]+/.exec(mail.text)?.[0];
  expect(link, mail.text).toBeTruthy();
  expect(mail.html).toContain(link!);

  // The invitee has no account: they create one on the invitation page, confirm the address with
  // the link mailed to it (the invitation link proves nothing: the inviter has it too), and join.
  const other = await browser.newContext();
  const guest = await other.newPage();
  await guest.goto(link!);
  await expect(guest.getByRole("heading", { name: "Join Olivia Owner's workspace" })).toBeVisible();
  await expect(guest.getByLabel("Email")).toHaveValue(invitee);
  await shot(guest, testInfo, "invite-accept");
  await guest.getByLabel("Name (optional)").fill("Ivan Invitee");
  await guest.getByLabel("Password").fill(PASSWORD);
  await guest.getByRole("button", { name: "Create account and join" }).click();
  await expect(guest.getByText("Confirm your email address to join")).toBeVisible();
  await shot(guest, testInfo, "invite-confirm-address");
  const confirm = await waitForMail(invitee, 15_000, "Confirm your email address for Linkhop");
  const confirmLink = /https?:\/\/\S+\/account\/verify\/\S+/.exec(confirm.text)![0];
  await guest.goto(confirmLink);
  await expect(guest.getByRole("heading", { name: "Email address confirmed" })).toBeVisible();
  await guest.getByRole("link", { name: "Continue" }).click();
  await guest.getByRole("button", { name: "Accept and join Olivia Owner's workspace" }).click();
  await expect(guest).toHaveURL(new RegExp(`/w/${slug}`));
  await expect(guest.getByRole("heading", { name: "Olivia Owner's workspace" })).toBeVisible();
  await expect(guest.getByText("Free plan · admin")).toBeVisible();
  await expect(guest.getByRole("status").filter({ hasText: "You joined Olivia Owner's workspace" })).toBeVisible();
  await shot(guest, testInfo, "invitee-workspace");
  // The link works once.
  await guest.goto(link!);
  await expect(guest.getByRole("heading", { name: "This invitation was already used" })).toBeVisible();
  await other.close();

  await page.reload();
  await expect(page.getByText("Ivan Invitee")).toBeVisible();
  await expect(page.getByText("No pending invitations")).toBeVisible();
  await expect(page.getByLabel(`Role of ${invitee}`)).toHaveValue("admin");

  // An existing account is added directly.
  const existing = uniqueEmail("existing");
  await admin("user:create", { email: existing, password: PASSWORD });
  await page.getByRole("button", { name: "Invite member" }).click();
  await dialog.getByRole("tab", { name: "Add existing account" }).click();
  await dialog.getByLabel("Email").fill(existing);
  await dialog.getByRole("button", { name: "Add member" }).click();
  await expect(page.getByRole("status").filter({ hasText: `${existing} added` })).toBeVisible();
  await expect(page.getByLabel(`Role of ${existing}`)).toHaveValue("member");

  // Roles and removal.
  await page.getByLabel(`Role of ${invitee}`).selectOption("member");
  await expect(page.getByRole("status").filter({ hasText: `${invitee} is now a member` })).toBeVisible();
  await page.getByRole("button", { name: `Remove ${existing}` }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Remove member" }).click();
  await expect(page.getByRole("status").filter({ hasText: `${existing} removed` })).toBeVisible();
  await expect(page.getByLabel(`Role of ${existing}`)).toHaveCount(0);
  await shot(page, testInfo, "members-after");

  // The only owner cannot leave; the owner's own role is not editable.
  await expect(page.getByRole("button", { name: "Leave workspace" })).toHaveCount(0);
});

// An invitee who already has an account signs in on the invitation page, joins, and then receives
// the workspace's ownership; the former owner stays on as an admin.
test("an existing account accepts by signing in, then ownership is transferred to it", async ({ page, browser }, testInfo) => {
  const { slug } = await signUp(page, { name: "Paula Owner" });
  const invitee = uniqueEmail("existing-invitee");
  await admin("user:create", { email: invitee, password: PASSWORD });

  await page.goto(`/w/${slug}/members`);
  await page.getByRole("button", { name: "Invite member" }).click();
  const dialog = page.getByRole("dialog", { name: "Add people to the workspace" });
  await dialog.getByLabel("Email").fill(invitee);
  await dialog.getByRole("button", { name: "Send invitation" }).click();
  await page.getByRole("dialog", { name: "Invitation sent" }).getByRole("button", { name: "Done" }).click();
  const link = /https?:\/\/\S+\/invite\/[A-Za-z0-9_-]+/.exec((await waitForMail(invitee)).text)?.[0];
  expect(link).toBeTruthy();

  const other = await browser.newContext();
  const guest = await other.newPage();
  await guest.goto(link!);
  // The page does not know (nor tell) that the address has an account: the invitee picks "sign in".
  await guest.getByRole("link", { name: "I have an account" }).click();
  await expect(guest.getByText("Sign in with your Linkhop account for this address to accept.")).toBeVisible();
  await shot(guest, testInfo, "invite-sign-in");
  await guest.getByLabel("Password").fill("not the password");
  await guest.getByRole("button", { name: "Sign in and join" }).click();
  await expect(guest.getByRole("alert").filter({ hasText: /password/i })).toBeVisible();
  await guest.getByLabel("Password").fill(PASSWORD);
  await guest.getByRole("button", { name: "Sign in and join" }).click();
  await expect(guest).toHaveURL(new RegExp(`/w/${slug}`));
  await expect(guest.getByText("Free plan · member")).toBeVisible();

  await page.reload();
  await page.getByRole("button", { name: "Make owner" }).click();
  const confirm = page.getByRole("dialog", { name: `Transfer ownership to ${invitee}?` });
  await shot(page, testInfo, "members-transfer-confirm");
  await confirm.getByRole("button", { name: "Transfer ownership" }).click();
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await page.reload();
  await expect(page.getByText("Free plan · admin")).toBeVisible();
  await guest.reload();
  await expect(guest.getByText("Free plan · owner")).toBeVisible();
  await shot(page, testInfo, "members-after-transfer");
  await other.close();
});
