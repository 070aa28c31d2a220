// Web addresses as people type them. The API takes only absolute http(s) URLs (the contract's
// validation error otherwise); the app's forms first complete an address typed without its scheme,
// as Dub and Bitly do: `example.com/spring` becomes `https://example.com/spring`.

// host.tld with an optional port, then the end or a path, query or fragment
const HOST_FIRST = /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z][a-z0-9-]*[a-z0-9](?::\d{1,5})?(?:[/?#]|$)/i;

/** `input` trimmed, with `https://` in front when it starts with a host name instead of a scheme. */
export function withDefaultScheme(input: string): string {
  const text = input.trim();
  if (text.startsWith("//")) return `https:${text}`;
  if (HOST_FIRST.test(text)) return `https://${text}`;
  return text;
}

/** An absolute http or https URL with a host (the rule of the links schema's `httpUrl`). */
export function isHttpUrl(value: string): boolean {
  try {
    const u = new URL(value);
    return (u.protocol === "http:" || u.protocol === "https:") && u.hostname.length > 0;
  } catch {
    return false;
  }
}

/** Longest pasted text looked at as an address (the links schema allows 2,048 characters, see field-schemas.ts). */
const PASTE_MAX = 2048;

/**
 * The web address in pasted text, completed as the forms complete it, or null when the text is
 * not one address: the quick-create dialog opens on a paste outside a field only for an address.
 * One token (no inner whitespace), http(s) or a host name, at most PASTE_MAX characters.
 */
export function urlFromPaste(text: string): string | null {
  const trimmed = text.trim();
  if (!trimmed || trimmed.length > PASTE_MAX || /\s/.test(trimmed)) return null;
  const url = withDefaultScheme(trimmed);
  return isHttpUrl(url) ? url : null;
}
