import fs from "node:fs";
import { createRequire } from "node:module";
import { isIP } from "node:net";
import { Reader } from "mmdb-lib";
import { shared } from "../../registry.ts";
import { log } from "../../log/index.ts";

// Where a visitor is, from their address, in a local MMDB file (no network, no account):
// - default: the CC0 country database of the `@ip-location-db/geo-whois-asn-country-mmdb` package
//   (records { country_code });
// - GEOIP_DB=/path/GeoLite2-City.mmdb: a MaxMind-format city database
//   (records { country: { iso_code }, city: { names: { en } } }).
// A country header set by a CDN in front (GEO_COUNTRY_HEADER) wins over the database (enrich.ts).

export type Place = { country: string | null; city: string | null };
const NOWHERE: Place = { country: null, city: null };

type GeoRecord = {
  country_code?: string;
  country?: { iso_code?: string };
  registered_country?: { iso_code?: string };
  city?: { names?: Record<string, string> };
};

export class GeoLookup {
  private reader: Reader<never>;
  constructor(database: Buffer) {
    this.reader = new Reader<never>(database);
  }

  static fromFile(file: string): GeoLookup {
    return new GeoLookup(fs.readFileSync(file));
  }

  lookup(address: string | undefined): Place {
    const ip = plainAddress(address);
    if (!ip) return NOWHERE;
    let r: GeoRecord | null;
    try {
      r = this.reader.get(ip) as GeoRecord | null;
    } catch {
      return NOWHERE;
    }
    if (!r) return NOWHERE;
    const country = r.country_code ?? r.country?.iso_code ?? r.registered_country?.iso_code ?? null;
    const city = r.city?.names?.en ?? null;
    return { country: countryCode(country), city: city ? city.slice(0, 100) : null };
  }
}

/** An ISO 3166 alpha-2 code in upper case, or null. */
export function countryCode(raw: string | null | undefined): string | null {
  if (!raw) return null;
  const c = raw.trim().toUpperCase();
  return /^[A-Z]{2}$/.test(c) && c !== "XX" && c !== "ZZ" ? c : null;
}

/** "::ffff:1.2.3.4" (an IPv4 peer on a dual-stack socket) -> "1.2.3.4"; anything not an address -> null. */
export function plainAddress(address: string | undefined): string | null {
  if (!address) return null;
  const a = address.startsWith("::ffff:") && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
  return isIP(a) ? a : null;
}

export function defaultGeoDatabase(): string {
  const require = createRequire(import.meta.url);
  const pkg = require.resolve("@ip-location-db/geo-whois-asn-country-mmdb/package.json");
  return pkg.replace(/package\.json$/, "geo-whois-asn-country.mmdb");
}

/** The process's lookup (loaded once, on first use; null when the database cannot be read). */
export function geoLookup(): GeoLookup | null {
  return shared("geo", () => {
    const file = process.env.GEOIP_DB || defaultGeoDatabase();
    try {
      return GeoLookup.fromFile(file);
    } catch (e) {
      log("analytics").error({ file, err: e }, `cannot read the IP location database ${file}; countries come only from GEO_COUNTRY_HEADER`);
      return null;
    }
  });
}
