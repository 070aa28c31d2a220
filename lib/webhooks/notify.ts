import { config } from "../config/index.ts";
import { db } from "../db/client.ts";
import { sendMail } from "../mail/index.ts";
import { inBackground } from "../background.ts";
import { log } from "../log/index.ts";

/**
 * Emails the owners in the background (a slow SMTP server must not hold a delivery slot); a clean
 * shutdown or the end of an admin CLI command waits for it.
 */
export function notifyEndpointDisabledSoon(endpointId: number, reason: string): void {
  void inBackground(notifyEndpointDisabled(endpointId, reason));
}

/** Tells the workspace's owners that an endpoint was switched off, and why. Never throws. */
export async function notifyEndpointDisabled(endpointId: number, reason: string): Promise<void> {
  try {
    const ep = await db().webhookEndpoint.findUnique({
      where: { id: endpointId },
      include: { workspace: { include: { memberships: { where: { role: "owner" }, include: { user: true } } } } },
    });
    if (!ep) return;
    const to = ep.workspace.memberships.map((m) => m.user.email);
    if (!to.length) return;
    const page = `${config().APP_URL}/w/${ep.workspace.slug}/developers`;
    await sendMail({
      to,
      subject: `Linkhop: webhook endpoint disabled in ${ep.workspace.name}`,
      text: [
        `The webhook endpoint ${ep.url} of the workspace ${ep.workspace.name} has been disabled:`,
        `${reason}.`,
        "",
        "While it is disabled nothing is sent to it and new events are not kept for it.",
        `Fix the receiver, then turn the endpoint back on at ${page}; its failure count starts again.`,
      ].join("\n"),
    });
  } catch (e) {
    log("webhooks").error({ endpointId, err: e }, `could not email the owners about endpoint ${endpointId}`);
  }
}
