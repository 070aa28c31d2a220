import { config } from "../config/index.ts";
import { checkDestination, defaultResolve, type GuardOptions, type GuardResult } from "../net/index.ts";
import { log } from "../log/index.ts";

/** The guard as configured: DNS_SERVERS resolvers, WEBHOOK_ALLOW_PRIVATE, WEBHOOK_TEST_ALLOW_PORT. */
export function guardOptions(): GuardOptions {
  const cfg = config();
  return { allowPrivate: cfg.WEBHOOK_ALLOW_PRIVATE, allowPort: cfg.WEBHOOK_TEST_ALLOW_PORT, resolve: defaultResolve(cfg.DNS_SERVERS) };
}

/** What the endpoint form says a URL must be, true to this instance's guard (guardOptions). */
export function endpointUrlHint(o: Pick<GuardOptions, "allowPrivate" | "allowPort"> = guardOptions()): string {
  if (o.allowPrivate)
    return "http or https, any port; private and local addresses are allowed on this instance (WEBHOOK_ALLOW_PRIVATE). A token may go in the path or query.";
  const ports = o.allowPort && o.allowPort !== 443 ? `port 443 or ${o.allowPort}` : "port 443";
  return `HTTPS on ${ports}, on a public address. A token may go in the path or query.`;
}

/**
 * checkDestination with a deadline: a resolver that hangs counts as a DNS failure. Used on save and
 * before every attempt; its message is what the workspace sees (form error, delivery log).
 */
export async function checkWebhookUrl(url: string, timeoutMs = config().WEBHOOK_TIMEOUT_MS): Promise<GuardResult> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<GuardResult>((resolve) => {
    timer = setTimeout(
      () => resolve({ ok: false, reason: "dns", message: `Resolving the host took longer than ${timeoutMs} ms.` }),
      timeoutMs,
    );
  });
  try {
    const r = await Promise.race([checkDestination(url, guardOptions()), deadline]);
    // Where a refused name points stays in the server log: the workspace only learns it was refused.
    if (!r.ok && r.detail) log("webhooks").warn(`refused a webhook URL: ${r.detail}`);
    return r;
  } finally {
    clearTimeout(timer);
  }
}
