import { Resolver } from "node:dns/promises";
import { config } from "../config/index.ts";

// TXT lookups for domain verification. DNS_SERVERS (a "host:port" list) replaces the system
// resolvers, so tests and private setups can point the check at their own DNS server.

export type TxtLookup = { ok: true; values: string[] } | { ok: false; message: string };

function resolver(): Resolver {
  const r = new Resolver({ timeout: 3000, tries: 2 });
  const servers = config().DNS_SERVERS;
  if (servers.length) r.setServers(servers);
  return r;
}

/** The TXT strings at `name` (each record's chunks joined), or why there are none. */
export async function lookupTxt(name: string): Promise<TxtLookup> {
  try {
    const records = await resolver().resolveTxt(name);
    return { ok: true, values: records.map((chunks) => chunks.join("")) };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENODATA" || code === "ENOTFOUND") {
      return { ok: false, message: `No TXT record found at ${name} yet. Create it, then try again (DNS changes can take a few minutes).` };
    }
    if (code === "ETIMEOUT" || code === "ECONNREFUSED") {
      return { ok: false, message: `The DNS lookup of ${name} timed out. Try again in a moment.` };
    }
    return { ok: false, message: `The DNS lookup of ${name} failed (${code ?? "error"}). Try again in a moment.` };
  }
}
