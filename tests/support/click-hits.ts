import type { ClickHit } from "../../lib/analytics/ingest/enrich.ts";
import type { ClickEvent } from "../../lib/analytics/model.ts";

const FIREFOX = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:126.0) Gecko/20100101 Firefox/126.0";

/** The i-th of a run of people's visits to a link (a time i ms ago, a public address per i), as the redirect hands them to the click pipeline. */
export function clickHit(workspaceId: number, linkId: number, i: number): ClickHit {
  return {
    at: Date.now() - i,
    workspaceId,
    linkId,
    domain: "short.test",
    target: "destination",
    address: `81.2.69.${i % 250}`,
    userAgent: FIREFOX,
    referrer: undefined,
    countryHeader: undefined,
    bot: false,
    qr: false,
  };
}

/** A stored click event (as the pipeline writes it) of a person in Sweden on Firefox and Linux; `fields` says the rest. */
export function storedClick(fields: Pick<ClickEvent, "at" | "workspaceId" | "linkId" | "visitor">): ClickEvent {
  return {
    domain: "short.test",
    target: "destination",
    country: "SE",
    city: null,
    referrerHost: null,
    referrerUrl: null,
    device: "desktop",
    browser: "Firefox",
    os: "Linux",
    bot: false,
    qr: false,
    ...fields,
  };
}
