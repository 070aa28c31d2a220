import type { IncomingMessage } from "node:http";
import { clientAddress } from "../http/client-address.ts";

// The client's address for the sign-in and sign-up limits. Next's server actions and route
// handlers do not see the socket, so server.ts stamps every request it hands to Next with this
// header, overwriting whatever the client sent: the peer's address, or behind a trusted proxy
// (TRUST_PROXY=1) the last X-Forwarded-For entry, exactly as for password-protected links.

export const CLIENT_ADDRESS_HEADER = "x-linkhop-client-address";

export function stampClientAddress(req: IncomingMessage, trustProxy: boolean): void {
  req.headers[CLIENT_ADDRESS_HEADER] = clientAddress(req.socket.remoteAddress, req.headers["x-forwarded-for"], trustProxy) ?? "";
}

/** The stamped address; undefined outside server.ts (then every client shares one allowance). */
export function clientAddressFrom(headers: Pick<Headers, "get">): string | undefined {
  return headers.get(CLIENT_ADDRESS_HEADER) || undefined;
}
