// Headers every response of the app (everything Next serves: pages, assets, the API) carries.
// Short-link answers (lib/redirects) do not get them: a 302 stays as small as it is, and the few
// pages a short link shows set their own strict policy there.

/** HSTS lifetime: one year. Subdomains are left alone (they may be other people's services). */
export const HSTS_MAX_AGE_SECONDS = 365 * 86_400;

export function appSecurityHeaders(appUrl: string): [string, string][] {
  const headers: [string, string][] = [
    // No site may frame the app (clickjacking of the keys or members pages). X-Frame-Options for
    // browsers that predate frame-ancestors.
    ["Content-Security-Policy", "frame-ancestors 'none'"],
    ["X-Frame-Options", "DENY"],
    ["X-Content-Type-Options", "nosniff"],
    // Workspace slugs and link ids in the app's URLs never leave the app's origin.
    ["Referrer-Policy", "same-origin"],
  ];
  if (new URL(appUrl).protocol === "https:") headers.push(["Strict-Transport-Security", `max-age=${HSTS_MAX_AGE_SECONDS}`]);
  return headers;
}

/**
 * Uploaded images served by the app (a workspace's QR logo, app/w/[slug]/logo) may be SVG, which can
 * hold script. The app only uses them as images, where no script runs; opened directly, this
 * policy (in place of the app's own) runs no script, loads nothing and sandboxes the document.
 */
export const UPLOADED_IMAGE_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; frame-ancestors 'none'; sandbox";

export function isUploadedImagePath(url: string | undefined): boolean {
  return /^\/w\/[^/?#]+\/logo(?:[?#]|$)/.test(url ?? "");
}
