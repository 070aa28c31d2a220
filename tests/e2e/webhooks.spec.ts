import { expect, test } from "@playwright/test";
import { verifyWebhookSignature } from "../../lib/webhooks/verify.ts";
import { startReceiver } from "../support/https-receiver.ts";
import { admin, PASSWORD, setDnsRecord, shot, signUp, testCa, uniqueEmail } from "./support.ts";

// The Developers page: add an endpoint (a real HTTPS receiver on loopback with a certificate from
// the run's CA; the e2e server runs with WEBHOOK_ALLOW_PRIVATE=1 for the loopback address and port),
// press Test, see the attempt in the delivery log, resend it.

test("add an endpoint, send a test event, see it in the log, resend it", async ({ page }, testInfo) => {
  const receiver = await startReceiver({
    tls: testCa().issue(["localhost"]),
    respond: (_req, i) => ({ status: 200, headers: { "content-type": "text/plain" }, body: `received #${i + 1}` }),
  });
  const got = receiver.requests;
  const url = receiver.url("127.0.0.1", "/linkhop?token=e2e");
  expect(url).toMatch(/^https:/);

  try {
    const { slug } = await signUp(page);
    await page.goto(`/w/${slug}/developers`);
    await expect(page.getByText("Webhooks are not included in the Free plan")).toBeVisible();
    await expect(page.getByRole("button", { name: "Add endpoint" })).toBeDisabled();

    await admin("workspace:plan", { slug, plan: "team" });
    await page.reload();
    await expect(page.getByText("No webhook endpoints yet")).toBeVisible();
    await shot(page, testInfo, "developers-empty");

    await page.getByRole("button", { name: "Add endpoint" }).click();
    const dialog = page.getByRole("dialog", { name: "Add a webhook endpoint" });
    await dialog.getByLabel("Endpoint URL").fill("https://user:pw@example.com/hook");
    await dialog.getByRole("button", { name: "Add endpoint" }).click();
    await expect(dialog.getByRole("alert").filter({ hasText: "user name or password" })).toBeVisible();
    await dialog.getByLabel("Endpoint URL").fill(url);
    await dialog.getByLabel("Description (optional)").fill("E2E receiver");
    await dialog.getByLabel("Only the selected events").check();
    await dialog.getByLabel("link.created").check();
    await dialog.getByLabel("member.joined").check();
    await shot(page, testInfo, "developers-add");
    await dialog.getByRole("button", { name: "Add endpoint" }).click();

    await expect(page).toHaveURL(new RegExp(`/w/${slug}/developers/\\d+$`));
    await expect(page.getByRole("heading", { name: "Webhook endpoint" })).toBeVisible();
    await expect(page.getByText("No deliveries yet")).toBeVisible();

    await page.getByRole("button", { name: "Reveal" }).click();
    const secret = (await page
      .locator("code")
      .filter({ hasText: /^whsec_/ })
      .textContent())!;
    expect(secret).toMatch(/^whsec_[0-9A-Za-z]{48}$/);

    await page.getByRole("button", { name: "Send test event" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Delivered: HTTP 200" })).toBeVisible();
    const log = page.getByRole("list", { name: "Deliveries" });
    const delivery = log.getByTestId("delivery").first();
    await expect(delivery.getByText("webhook.test")).toBeVisible();
    await expect(delivery.getByText("delivered", { exact: true })).toBeVisible();
    await expect(delivery.getByTestId("attempt")).toHaveCount(1);
    await expect(delivery.getByTestId("attempt").first()).toContainText("HTTP 200");
    await delivery.locator("summary").first().click();
    await expect(delivery.getByText("received #1")).toBeVisible();
    await shot(page, testInfo, "developers-test-sent");

    expect(got).toHaveLength(1);
    expect(got[0].headers["service-event"]).toBe("webhook.test");
    expect(verifyWebhookSignature(got[0].raw, got[0].headers["service-signature"] as string, secret)).toBe(true);
    const eventId = JSON.parse(got[0].raw.toString()).id as string;
    await expect(delivery.getByText(eventId)).toBeVisible();

    await delivery.getByRole("button", { name: "Resend" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Resent: HTTP 200" })).toBeVisible();
    await expect(delivery.getByTestId("attempt")).toHaveCount(2);
    await expect(delivery.getByTestId("attempt").first()).toContainText("(manual)");
    expect(got).toHaveLength(2);
    expect(got[1].raw.equals(got[0].raw)).toBe(true);
    expect(got[1].headers["service-delivery"]).toBe(eventId);

    // The log filters by status and event type.
    await page.getByLabel("Status").selectOption("failed");
    await page.getByRole("button", { name: "Filter" }).click();
    await expect(page.getByText("No deliveries match.")).toBeVisible();
    await page.getByLabel("Status").selectOption("delivered");
    await page.getByLabel("Event type").selectOption("webhook.test");
    await page.getByRole("button", { name: "Filter" }).click();
    await expect(page.getByTestId("delivery")).toHaveCount(1);
    await shot(page, testInfo, "developers-log");

    // Back on the list: the endpoint with its events and the enabled switch.
    await page.getByRole("link", { name: "← Developers" }).click();
    await expect(page.getByText("E2E receiver")).toBeVisible();
    await expect(page.getByText("link.created, member.joined")).toBeVisible();
    const toggle = page.getByRole("switch", { name: `Enabled: ${url}` });
    await expect(toggle).toHaveAttribute("aria-checked", "true");
    await toggle.click();
    await expect(toggle).toHaveAttribute("aria-checked", "false");
    await expect(page.getByText("Disabled", { exact: true })).toBeVisible();
  } finally {
    await receiver.stop();
  }
});

test("members see that webhooks are for owners and admins only", async ({ page, browser }) => {
  const { slug } = await signUp(page);
  const email = uniqueEmail("member");
  await admin("user:create", { email, password: PASSWORD });
  await admin("member:add", { slug, email, role: "member" });
  const context = await browser.newContext();
  const member = await context.newPage();
  try {
    await member.goto("/login");
    await member.getByLabel("Email").fill(email);
    await member.getByLabel("Password").fill(PASSWORD);
    await member.getByRole("button", { name: "Sign in" }).click();
    await member.waitForURL(/\/w\//);
    await member.goto(`/w/${slug}/developers`);
    await expect(member.getByText("Webhooks are managed by the workspace's owners and admins only.")).toBeVisible();
    await expect(member.getByRole("button", { name: "Add endpoint" })).toHaveCount(0);
  } finally {
    await context.close();
  }
});

test("links made and edited in the UI reach an HTTPS endpoint as signed link events", async ({ page }) => {
  // A real HTTPS receiver with a certificate from the run's CA (trusted by the e2e server), at a
  // name only the loopback DNS server knows: the app resolved, checked and pinned it.
  const host = `hooks-${Date.now().toString(36)}.e2e.test`;
  await setDnsRecord(host, "A", ["127.0.0.1"]);
  const receiver = await startReceiver({ tls: testCa().issue([host]) });
  try {
    const { slug } = await signUp(page);
    await admin("workspace:plan", { slug, plan: "team" });
    await page.goto(`/w/${slug}/developers`);
    await page.getByRole("button", { name: "Add endpoint" }).click();
    const dialog = page.getByRole("dialog", { name: "Add a webhook endpoint" });
    await dialog.getByLabel("Endpoint URL").fill(receiver.url(host, "/links"));
    await dialog.getByRole("button", { name: "Add endpoint" }).click();
    await expect(page).toHaveURL(new RegExp(`/w/${slug}/developers/\\d+$`));
    await page.getByRole("button", { name: "Reveal" }).click();
    const secret = (await page
      .locator("code")
      .filter({ hasText: /^whsec_/ })
      .textContent())!;

    await page.goto(`/w/${slug}/links/new`);
    await page.getByLabel("Destination URL").fill("https://example.com/from-the-ui");
    await page.getByRole("button", { name: "Create link" }).click();
    await expect(page.getByRole("heading", { level: 1 })).toContainText(`localhost:${new URL(page.url()).port}/`);
    const code = new URL(`http://${(await page.getByRole("heading", { level: 1 }).textContent())!.trim()}`).pathname.slice(1);

    const [created] = await receiver.waitFor(1, 30_000);
    expect(created.headers["service-event"]).toBe("link.created");
    expect(verifyWebhookSignature(created.raw, created.headers["service-signature"] as string, secret)).toBe(true);
    const envelope = JSON.parse(created.raw.toString("utf8"));
    expect(envelope).toMatchObject({
      type: "link.created",
      workspace: { id: slug },
      data: { link: { code, url: "https://example.com/from-the-ui" } },
    });

    await page.getByRole("link", { name: "Edit", exact: true }).click();
    await page.getByLabel("Destination URL").fill("https://example.com/edited-in-the-ui");
    await page.getByRole("button", { name: "Save changes" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Link saved" })).toBeVisible();
    const updated = (await receiver.waitFor(2, 30_000))[1];
    expect(updated.headers["service-event"]).toBe("link.updated");
    expect(verifyWebhookSignature(updated.raw, updated.headers["service-signature"] as string, secret)).toBe(true);
    expect(JSON.parse(updated.raw.toString("utf8"))).toMatchObject({
      type: "link.updated",
      data: { link: { code, url: "https://example.com/edited-in-the-ui" } },
    });
  } finally {
    await receiver.stop();
  }
});
