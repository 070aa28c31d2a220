// A browser without JavaScript for tests that cross origins (the app and an identity provider):
// cookies kept per origin, redirects followed hop by hop.

/** A browser's cookies, per origin (the app and the provider), without JavaScript. */
export class Browser {
  private jars = new Map<string, Map<string, string>>();

  cookie(origin: string, name: string): string | undefined {
    return this.jars.get(origin)?.get(name);
  }

  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const { origin } = new URL(url);
    const jar = this.jars.get(origin) ?? new Map<string, string>();
    this.jars.set(origin, jar);
    const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
    const res = await fetch(url, { ...init, redirect: "manual", headers: { ...(init.headers as object), ...(cookie ? { cookie } : {}) } });
    for (const set of res.headers.getSetCookie()) {
      const [pair, ...attributes] = set.split(";");
      const eq = pair.indexOf("=");
      const [name, value] = [pair.slice(0, eq).trim(), pair.slice(eq + 1).trim()];
      const expired = attributes.some(
        (a) => /^\s*max-age=0\s*$/i.test(a) || (/^\s*expires=/i.test(a) && Date.parse(a.split("=")[1]) < Date.now()),
      );
      if (expired || !value) jar.delete(name);
      else jar.set(name, value);
    }
    return res;
  }

  /** Follows redirects from `res` (at `url`) like a browser; every hop is returned. */
  async follow(url: string, res: Response): Promise<{ url: string; res: Response }[]> {
    const hops = [{ url, res }];
    while (res.status >= 300 && res.status < 400) {
      if (hops.length > 20) throw new Error(`too many redirects: ${hops.map((h) => h.url).join(" -> ")}`);
      url = new URL(res.headers.get("location")!, url).toString();
      res = await this.fetch(url);
      hops.push({ url, res });
    }
    return hops;
  }
}
