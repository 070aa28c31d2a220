// The A/B variant a browser was given, kept 30 days in a cookie on the short-link host (CONTRACT.md
// "Link routing": `variants`). One cookie per link: its name holds the link's id and its Path is
// the link's own path; its value is the variant's id (decide.ts variantId), nothing about the
// visitor. A value naming a variant the link no longer has is ignored (decideDestination).

export const STICKY_DAYS = 30;
const MAX_AGE = STICKY_DAYS * 86_400;
const ID_SHAPE = /^[A-Za-z0-9_-]{1,32}$/;

export function stickyCookieName(linkId: number): string {
  return `lh_v${linkId}`;
}

/** The variant id in the visitor's cookie for this link, if any well-formed one. */
export function stickyVariantOf(cookieHeader: string | undefined, linkId: number): string | undefined {
  if (!cookieHeader) return undefined;
  const name = stickyCookieName(linkId) + "=";
  let at = cookieHeader.indexOf(name);
  // the name must start the header or follow "; " (not end another cookie's name, such as xlh_v1)
  while (at > 0 && cookieHeader[at - 1] !== " " && cookieHeader[at - 1] !== ";") at = cookieHeader.indexOf(name, at + 1);
  if (at === -1) return undefined;
  const end = cookieHeader.indexOf(";", at);
  const value = cookieHeader.slice(at + name.length, end === -1 ? undefined : end).trim();
  return ID_SHAPE.test(value) ? value : undefined;
}

/** Set-Cookie for a variant: this link's path only, 30 days, HttpOnly, SameSite=Lax, Secure on https. */
export function stickyCookie(linkId: number, code: string, variant: string, secure: boolean): string {
  return `${stickyCookieName(linkId)}=${variant}; Path=/${code}; Max-Age=${MAX_AGE}; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`;
}
