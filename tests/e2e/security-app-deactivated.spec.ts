import http from "node:http";
import { expect, test } from "@playwright/test";
import { DEACTIVATED_MESSAGE } from "../../lib/workspaces/writable.ts";
import { admin, shot, signUp } from "./support.ts";

// A deactivated workspace, tried by its owner in a real browser: every page opens under a banner,
// and changes (a new link, an API key, the webhook Test button) are refused with a clear message;
// nothing is created and no event reaches the receiver. Reactivated, the same actions work.

test("a deactivated workspace is read-only in the app; reactivated it works again", async ({ page }, testInfo) => {
  const received: string[] = [];
  const receiver = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      received.push(JSON.parse(body).type);
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  const hookUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
  try {
    const { slug } = await signUp(page);
    await admin("workspace:plan", { slug, plan: "team" });
    const endpoint = (await admin("webhook:create", { slug, url: hookUrl, events: "link.created" })) as { id: number };
    await admin("workspace:deactivate", { slug });

    // Pages open, under the banner.
    for (const path of ["", "/links", "/settings/api-keys", `/developers/${endpoint.id}`]) {
      await page.goto(`/w/${slug}${path}`);
      await expect(page.getByTestId("workspace-deactivated")).toContainText(DEACTIVATED_MESSAGE);
    }
    await page.goto(`/w/${slug}/links/new`);
    await page.getByLabel("Destination URL").fill("https://example.com/while-off");
    await page.getByRole("button", { name: "Create link" }).click();
    await expect(page.getByText(DEACTIVATED_MESSAGE).last()).toBeVisible();
    await expect(page).toHaveURL(/\/links\/new$/);
    await shot(page, testInfo, "deactivated-new-link");

    await page.goto(`/w/${slug}/settings/api-keys`);
    await page.getByLabel("Name").fill("while off");
    await page.getByRole("button", { name: "Create key" }).click();
    await expect(page.getByText(DEACTIVATED_MESSAGE).last()).toBeVisible();
    await expect(page.getByTestId("new-api-key")).toHaveCount(0);

    await page.goto(`/w/${slug}/developers/${endpoint.id}`);
    await page.getByRole("button", { name: "Send test event" }).click();
    await expect(page.getByText(DEACTIVATED_MESSAGE).last()).toBeVisible();
    await shot(page, testInfo, "deactivated-test-button");
    expect(received).toEqual([]);

    // Switched on again: the same actions work, and the event is delivered.
    await admin("workspace:activate", { slug });
    await page.goto(`/w/${slug}/links/new`);
    await expect(page.getByTestId("workspace-deactivated")).toHaveCount(0);
    await page.getByLabel("Destination URL").fill("https://example.com/back-on");
    await page.getByRole("button", { name: "Create link" }).click();
    await expect(page).toHaveURL(/\/links\/\d+$/);
    await expect.poll(() => received, { timeout: 20_000 }).toEqual(["link.created"]);
  } finally {
    receiver.close();
  }
});
