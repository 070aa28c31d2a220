import { classifyAddress } from "./address.ts";
import { DnsError, NO_ANSWER, stripBrackets, type Resolve } from "./resolve.ts";

// The address guard for outgoing webhook connections: checked when an endpoint is saved and again
// before every attempt. The addresses it returns are the only ones the dialer may connect to, so
// there is no window between the check and the connection for DNS rebinding.

export type GuardOptions = {
  /** WEBHOOK_ALLOW_PRIVATE: http, any port and non-public addresses (development and tests only). */
  allowPrivate: boolean;
  /**
   * WEBHOOK_TEST_ALLOW_PORT: one more port allowed besides 443 (tests run their receivers on a port
   * of their own); every other rule, the address check included, is unchanged.
   */
  allowPort?: number;
  resolve: Resolve;
};

export type GuardRefusal = "invalid_url" | "scheme" | "port" | "credentials" | "dns" | "address";

export type GuardResult =
  | { ok: true; url: URL; host: string; port: number; addresses: string[] }
  | {
      ok: false;
      reason: GuardRefusal;
      /** For the workspace (form errors, the delivery log): never says which address a name resolves to. */
      message: string;
      /** For the server log only: the refused address and its class. */
      detail?: string;
    };

const refuse = (reason: GuardRefusal, message: string, detail?: string): GuardResult => ({ ok: false, reason, message, detail });

/** Checks the URL's shape only (no resolution): https, port 443 (or `allowPort`), no user name or password. */
export function checkUrlShape(raw: string, allowPrivate: boolean, allowPort?: number): GuardResult {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return refuse("invalid_url", "Enter a full URL such as https://example.com/webhooks.");
  }
  const schemes = allowPrivate ? ["https:", "http:"] : ["https:"];
  if (!schemes.includes(url.protocol)) return refuse("scheme", "The URL must start with https://.");
  if (url.username || url.password) {
    return refuse("credentials", "The URL must not contain a user name or password; put a token in the path or query instead.");
  }
  if (!url.hostname) return refuse("invalid_url", "The URL has no host.");
  const port = url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
  if (!allowPrivate && port !== 443 && port !== allowPort) return refuse("port", "The URL must use port 443.");
  return { ok: true, url, host: stripBrackets(url.hostname), port, addresses: [] };
}

/** Shape, then every address the host resolves to must be public. Never throws. */
export async function checkDestination(raw: string, opts: GuardOptions): Promise<GuardResult> {
  const shape = checkUrlShape(raw, opts.allowPrivate, opts.allowPort);
  if (!shape.ok) return shape;
  let addresses: string[];
  try {
    addresses = await opts.resolve(shape.host);
  } catch (e) {
    const code = e instanceof DnsError ? e.code : ((e as { code?: string }).code ?? "error");
    // In words: the resolver's code (ENOTFOUND, ETIMEOUT) goes to the server log only.
    const message = NO_ANSWER.has(code)
      ? `The host ${shape.host} cannot be resolved: no DNS record was found for it. Check the spelling of the address.`
      : `The host ${shape.host} cannot be resolved right now: the DNS server did not answer. Try again in a moment.`;
    return refuse("dns", message, `${shape.host}: ${code}`);
  }
  if (!addresses.length) return refuse("dns", `The host ${shape.host} has no addresses.`);
  if (!opts.allowPrivate) {
    for (const a of addresses) {
      const cls = classifyAddress(a);
      if (cls !== "public") {
        // The message only says that it is refused: echoing the address (or its class) would let
        // whoever saves a webhook map internal host names through the form.
        return refuse(
          "address",
          `The host ${shape.host} resolves to a private or reserved address; webhooks only go to public addresses.`,
          `${shape.host} resolves to ${a} (${cls})`,
        );
      }
    }
  }
  return { ...shape, addresses };
}
