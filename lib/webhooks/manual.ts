import { config } from "../config/index.ts";
import { db } from "../db/client.ts";
import { shortUrl } from "../links/serialize.ts";
import { isId } from "../ids.ts";
import { ServiceError } from "../errors.ts";
import { newEventId, recordTestEvent } from "../events/index.ts";
import { assertWritable } from "../workspaces/writable.ts";
import { attemptDelivery, type AttemptResult } from "./attempt.ts";

// Attempts made by hand: the Test button (webhook.test to one endpoint, one attempt, never
// retried) and Resend (one attempt now of an existing delivery: same event id, same bytes).

export const TEST_MESSAGE = "This is a test event from Linkhop. Your endpoint is receiving webhooks.";

/** Types the Test button can send: webhook.test, or a sample link.clicked (made-up click and link; link id 0). */
export const TEST_TYPES = ["webhook.test", "link.clicked"] as const;
export type TestType = (typeof TEST_TYPES)[number];

function sampleData(type: TestType, at: Date): unknown {
  if (type === "webhook.test") return { message: TEST_MESSAGE };
  const unix = Math.floor(at.getTime() / 1000);
  const host = config().shortDomain;
  return {
    click: {
      id: "clk_000000000000000000000000",
      time: at.getTime(),
      country: "DE",
      city: "Berlin",
      referrerHost: "news.example",
      referrerUrl: "https://news.example/item?id=1",
      device: "mobile",
      browser: "Safari",
      os: "iOS",
      qr: false,
      target: "destination",
    },
    link: {
      id: 0,
      short: shortUrl(host, "sample"),
      code: "sample",
      domain: host,
      url: "https://example.com/",
      active: true,
      expiresOn: null,
      maxClicks: null,
      startsOn: null,
      fallbackUrl: null,
      createdOn: unix,
      folder: "",
      title: "A sample link (Test button)",
      notes: null,
    },
  };
}

/** Sends webhook.test (or a sample of `type`) to one endpoint (of `workspaceId` when given; the admin CLI passes none). */
export async function sendTestEvent(
  endpointId: number,
  workspaceId?: number,
  type: TestType = "webhook.test",
): Promise<AttemptResult & { eventId: string }> {
  const ep = isId(endpointId)
    ? await db().webhookEndpoint.findFirst({
        where: { id: endpointId, ...(workspaceId !== undefined ? { workspaceId } : {}) },
        include: { workspace: true },
      })
    : null;
  if (!ep) throw ServiceError.notFound("No such webhook endpoint.");
  await assertWritable(ep.workspaceId);
  const id = newEventId();
  const at = new Date();
  const deliveryId = await db().$transaction((tx) =>
    recordTestEvent(tx, ep.workspace, ep.id, { id, type, at, data: sampleData(type, at) }),
  );
  return { ...(await attemptDelivery(deliveryId, { manual: true })), eventId: id };
}

/** One attempt now of an existing delivery, logged like any other (marked manual). */
export async function resendDelivery(workspaceId: number, deliveryId: number): Promise<AttemptResult> {
  const d = isId(deliveryId)
    ? await db().delivery.findFirst({ where: { id: deliveryId, endpoint: { workspaceId } }, select: { id: true } })
    : null;
  if (!d) throw ServiceError.notFound("No such delivery.");
  await assertWritable(workspaceId);
  return attemptDelivery(d.id, { manual: true });
}
