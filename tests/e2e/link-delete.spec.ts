import { expect, test } from "@playwright/test";
import { verifyWebhookSignature } from "../../lib/webhooks/verify.ts";
import { startReceiver } from "../support/https-receiver.ts";
import { admin, signUp, testCa } from "./support.ts";

// Deleting from the link's own page: confirm, then back on the list with the link gone, and a signed
// link.deleted event with the link as it was reaches the workspace's HTTPS webhook endpoint.

test("delete a link from its page", async ({ page }) => {
  const receiver = await startReceiver({ tls: testCa().issue(["localhost"]) });
  try {
    const { slug } = await signUp(page);
    await admin("workspace:plan", { slug, plan: "team" });
    const endpoint = await admin("webhook:create", { slug, url: receiver.url(), events: "all" });
    const secret = String(endpoint.secret);

    await page.goto(`/w/${slug}/links/new`);
    await page.getByLabel("Destination URL").fill("https://example.com/delete-me");
    await page.getByRole("button", { name: "Create link" }).click();
    await expect(page).toHaveURL(new RegExp(`/w/${slug}/links/\\d+$`));
    const id = Number(new URL(page.url()).pathname.split("/").pop());
    const [created] = await receiver.waitFor(1, 30_000);
    const createdEnvelope = JSON.parse(created.raw.toString("utf8"));
    expect(createdEnvelope).toMatchObject({ type: "link.created", data: { link: { id, url: "https://example.com/delete-me" } } });

    await page.getByRole("button", { name: "Delete", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: "Delete this link?" });
    await dialog.getByRole("button", { name: "Delete link" }).click();
    await expect(page).toHaveURL(new RegExp(`/w/${slug}/links$`));
    await expect(page.getByRole("status").filter({ hasText: "Deleted" })).toBeVisible();
    await expect(page.getByText("example.com/delete-me")).toHaveCount(0);

    const deleted = (await receiver.waitFor(2, 30_000))[1];
    expect(deleted.headers["service-event"]).toBe("link.deleted");
    expect(verifyWebhookSignature(deleted.raw, deleted.headers["service-signature"] as string, secret)).toBe(true);
    const envelope = JSON.parse(deleted.raw.toString("utf8"));
    expect(envelope).toMatchObject({ type: "link.deleted", workspace: { id: slug } });
    expect(envelope.id).not.toBe(createdEnvelope.id);
    // the link as it was: the same link the creation announced
    expect(envelope.data.link).toEqual(createdEnvelope.data.link);
    expect(receiver.requests).toHaveLength(2);
  } finally {
    await receiver.stop();
  }
});
