// Submitting the app's forms over plain HTTP, as a browser without JavaScript does: the page's
// <form> carries React's hidden action fields; posting them with the visible fields runs the
// server action (progressive enhancement). The answer is a redirect (303) or the page again.

export type FormAnswer = { status: number; location: string | null; html: string; cookies: string[] };

function unescapeHtml(s: string): string {
  return s.replace(/&quot;/g, '"').replace(/&#x27;|&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
}

/** The hidden fields of the page's forms, in page order. */
export function formsOf(html: string): [string, string][][] {
  return [...html.matchAll(/<form\b[^>]*>([\s\S]*?)<\/form>/g)].map((m) =>
    [...m[1].matchAll(/<input\b[^>]*>/g)]
      .map((i) => i[0])
      .filter((tag) => /type="hidden"/.test(tag) && /name="/.test(tag))
      .map((tag) => [unescapeHtml(/name="([^"]*)"/.exec(tag)![1]), unescapeHtml(/value="([^"]*)"/.exec(tag)?.[1] ?? "")] as [string, string]),
  );
}

/**
 * Loads `path`, takes the form whose hidden fields include an action (`which` picks among several),
 * and posts it with `fields`. `headers` go on both requests (cookie, X-Forwarded-For).
 */
export async function submitForm(
  baseUrl: string,
  path: string,
  fields: Record<string, string>,
  opts: { headers?: Record<string, string>; which?: number } = {},
): Promise<FormAnswer> {
  const page = await fetch(`${baseUrl}${path}`, { headers: opts.headers, redirect: "manual" });
  if (page.status !== 200) throw new Error(`GET ${path} answered ${page.status}`);
  const forms = formsOf(await page.text()).filter((f) => f.some(([name]) => name.startsWith("$ACTION")));
  const form = forms[opts.which ?? 0];
  if (!form) throw new Error(`no action form on ${path}`);
  const body = new FormData();
  for (const [name, value] of form) body.append(name, value);
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
