import { config } from "../config/index.ts";
import type { z } from "zod";
import type { Link } from "../db/generated/client.ts";
import { routingView } from "./routing.ts";
import { webhookLinkSchema, type apiLinkSchema } from "./schemas.ts";

// The link objects (docs/api.md "Endpoints"), defined once as zod schemas (webhookLinkSchema and
// apiLinkSchema in schemas.ts), with their types and field list derived from them; the API link
// object adds clicks, hasPassword, tags, targeting and the routing fields (routing.ts routingView):
// settings outside the webhook link object. Times are unix seconds.

/** A stored link together with the host it lives on (and its tag names, when the service loaded them). */
export type LinkWithHost = Link & { host: string; tagNames?: string[] };

export type WebhookLink = z.output<typeof webhookLinkSchema>;
export type ApiLink = z.output<typeof apiLinkSchema>;

/** The names of the webhook link object's fields, in the schema's (documented) order (used for `changed`). */
export const WEBHOOK_LINK_FIELDS = webhookLinkSchema.keyof().options;

export const unixSeconds = (d: Date) => Math.floor(d.getTime() / 1000);
const unixOrNull = (d: Date | null) => (d ? unixSeconds(d) : null);

/** Full short URL: APP_URL's scheme, the link's host, the code. */
export function shortUrl(host: string, code: string): string {
  const scheme = new URL(config().APP_URL).protocol;
  return `${scheme}//${host}/${code}`;
}

/** The host of a link: its custom domain's host, or the default short domain. */
export function hostOf(link: { domainId: number | null; domain?: { host: string } | null }): string {
  return link.domainId === null ? config().shortDomain : link.domain!.host;
}

export function toWebhookLink(link: Link, domainHost: string): WebhookLink {
  return {
    id: link.id,
    short: shortUrl(domainHost, link.code),
    code: link.code,
    domain: domainHost,
    url: link.url,
    active: link.active,
    expiresOn: unixOrNull(link.expiresOn),
    maxClicks: link.maxClicks,
    startsOn: unixOrNull(link.startsOn),
    fallbackUrl: link.fallbackUrl,
    createdOn: unixSeconds(link.createdAt),
    folder: link.folder,
    title: link.title,
    notes: link.notes,
  };
}

/** A stored link with the host it lives on. */
export const linkWithHost = (link: Link, host: string): LinkWithHost => ({ ...link, host });

/** The webhook link object of a link that carries its host. */
export const webhookLink = (link: LinkWithHost): WebhookLink => toWebhookLink(link, link.host);

export function toApiLink(link: Link & { tagNames?: string[] }, domainHost: string): ApiLink {
  return {
    ...toWebhookLink(link, domainHost),
    clicks: link.clicks,
    hasPassword: link.passwordHash !== null,
    tags: link.tagNames ?? [],
    targeting: (link.targeting as ApiLink["targeting"]) ?? null,
    ...routingView(link.routing),
  };
}

/** Names of the webhook link object's fields whose values differ, in the documented order. */
export function changedFields(before: WebhookLink, after: WebhookLink): string[] {
  return WEBHOOK_LINK_FIELDS.filter((f) => before[f] !== after[f]);
}
