// Submitting the app's forms over plain HTTP, as a browser without JavaScript does: the page's
// <form> carries React's hidden action fields; posting them with the visible fields runs the
// server action (progressive enhancement). The answer is a redirect (303) or the page again.

export type FormAnswer = { status: number; location: string | null; html: string; cookies: string[] };

function unescapeHtml(s: string): string {
  return s
    .replace(/&quot;/g, '"')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}

/** The page's forms in page order: their inner HTML and hidden fields. */
export function formsOf(html: string): { html: string; fields: [string, string][] }[] {
  return [...html.matchAll(/<form\b[^>]*>([\s\S]*?)<\/form>/g)].map((m) => ({
    html: m[1],
    fields: [...m[1].matchAll(/<input\b[^>]*>/g)]
      .map((i) => i[0])
      .filter((tag) => /type="hidden"/.test(tag) && /name="/.test(tag))
      .map(
        (tag) => [unescapeHtml(/name="([^"]*)"/.exec(tag)![1]), unescapeHtml(/value="([^"]*)"/.exec(tag)?.[1] ?? "")] as [string, string],
      ),
  }));
}

/**
 * Loads `path`, takes the first form that runs an action (and contains the text `containing`, when
 * given), and posts it with `fields`. `headers` go on both requests (cookie, X-Forwarded-For).
 */
export async function submitForm(
  baseUrl: string,
  path: string,
  fields: Record<string, string>,
  opts: { headers?: Record<string, string>; containing?: string } = {},
): Promise<FormAnswer> {
  const page = await fetch(`${baseUrl}${path}`, { headers: opts.headers, redirect: "manual" });
  if (page.status !== 200) throw new Error(`GET ${path} answered ${page.status}`);
  const form = formsOf(await page.text()).find(
    (f) => f.fields.some(([name]) => name.startsWith("$ACTION")) && (!opts.containing || f.html.includes(opts.containing)),
  );
  if (!form) throw new Error(`no action form on ${path}`);
  const body = new FormData();
  for (const [name, value] of form.fields) body.append(name, value);
  for (const [name, value] of Object.entries(fields)) body.append(name, value);
  const res = await fetch(`${baseUrl}${path}`, { method: "POST", body, headers: opts.headers, redirect: "manual" });
  return {
    status: res.status,
    location: res.headers.get("location"),
    html: await res.text(),
    cookies: (res.headers.getSetCookie?.() ?? []).map((c) => c.split(";")[0]),
  };
}

/** The session cookie among set cookies, if any. */
export function sessionCookieOf(cookies: string[]): string | undefined {
  return cookies.find((c) => /^(__Secure-)?authjs\.session-token=./.test(c));
}

export type CredentialsAnswer = { signedIn: boolean; code: string | null; cookies: string[] };

/**
 * One sign-in through Auth.js's credentials endpoint, as a script would guess: `headers` on both
 * requests (X-Forwarded-For), `cookie` as a browser would add it. `code` is the refusal's code in
 * the answer's location (credentials, too_many_attempts.N, second_factor).
 */
export async function credentialsSignIn(
  baseUrl: string,
  email: string,
  password: string,
  headers: Record<string, string> = {},
  cookie = "",
): Promise<CredentialsAnswer> {
  const csrfRes = await fetch(`${baseUrl}/api/auth/csrf`, { headers });
  const { csrfToken } = (await csrfRes.json()) as { csrfToken: string };
  const csrfCookie = (csrfRes.headers.getSetCookie?.() ?? []).map((c) => c.split(";")[0]).join("; ");
  const res = await fetch(`${baseUrl}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { ...headers, "content-type": "application/x-www-form-urlencoded", cookie: [csrfCookie, cookie].filter(Boolean).join("; ") },
    body: new URLSearchParams({ csrfToken, email, password, callbackUrl: `${baseUrl}/` }),
  });
  const cookies = (res.headers.getSetCookie?.() ?? []).map((c) => c.split(";")[0]);
  const location = res.headers.get("location") ?? "";
  return {
    signedIn: Boolean(sessionCookieOf(cookies)),
    code: location.includes("?") ? new URL(location, baseUrl).searchParams.get("code") : null,
    cookies,
  };
}
