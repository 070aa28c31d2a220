// The QR codes the app draws encode the short URL with this marker; the redirect recognises it
// (lib/redirects/routing.ts isQrVisit), records the visit as a QR scan and does not pass it on.
export const QR_MARKER = "qr=1";

export function qrUrl(shortUrl: string): string {
  return `${shortUrl}${shortUrl.includes("?") ? "&" : "?"}${QR_MARKER}`;
}
