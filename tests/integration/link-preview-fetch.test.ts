import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchPreviewCard, PAGE_MAX_BYTES, PAGE_TIMEOUT_MS } from "../../lib/links/preview-fetch.ts";
import { ServiceError } from "../../lib/errors.ts";
import type { GuardOptions } from "../../lib/net/index.ts";
import { startReceiver, type Receiver, type Reply } from "../support/https-receiver.ts";

// "Fetch from destination" (lib/links/preview-fetch.ts) against real HTTP servers on loopback,
// through the webhooks' address guard and pinned dialer: as production runs it (private addresses
// refused, also behind a public-looking name and after a redirect), and with private addresses
// allowed (WEBHOOK_ALLOW_PRIVATE, as in development and the e2e run): the card is read, redirects
// followed, at most PAGE_MAX_BYTES read, one deadline for the whole fetch.

const CARD = `<html><head><meta property="og:title" content="Loopback card"><meta property="og:description" content="From the test"></head>`;

let page: Receiver;
let hang: Receiver;

beforeAll(async () => {
  page = await startReceiver({
    respond: (req): Reply => {
      if (req.path === "/moved") return { status: 301, headers: { location: "/card" } };
      if (req.path === "/big")
        return { status: 200, headers: { "content-type": "text/html" }, body: CARD + " ".repeat(PAGE_MAX_BYTES * 2) };
      if (req.path === "/none") return { status: 200, body: "<p>no card</p>" };
      if (req.path === "/missing") return { status: 404, body: "gone" };
      return { status: 200, headers: { "content-type": "text/html" }, body: CARD };
    },
  });
  hang = await startReceiver({ respond: () => ({ hang: true }) });
});

afterAll(async () => {
  await page?.stop();
  await hang?.stop();
});

/** As production: private addresses refused; the receiver's port allowed, so the address is what decides. */
const production = (resolveTo = ["127.0.0.1"]): GuardOptions => ({
  allowPrivate: false,
  allowPort: page.port,
  resolve: async () => resolveTo,
});
const allowPrivate: GuardOptions = { allowPrivate: true, resolve: async () => ["127.0.0.1"] };

async function refusal(url: string, options: GuardOptions): Promise<ServiceError> {
  try {
    await fetchPreviewCard(url, options);
  } catch (e) {
    if (e instanceof ServiceError) return e;
    throw e;
  }
  throw new Error(`${url} was fetched`);
}

describe("private addresses refused when not allowed", () => {
  it("a loopback address, directly or behind a name, gets no request", async () => {
    const before = page.requests.length;
    const direct = await refusal(`https://127.0.0.1:${page.port}/card`, production());
    expect(direct.code).toBe("validation");
    expect(direct.issues[0].path).toBe("url");
    expect(direct.message).toMatch(/^Could not read the page: /);
    const named = await refusal(`https://public.example:${page.port}/card`, production(["10.0.0.7"]));
    expect(named.message).toMatch(/^Could not read the page: /);
    expect(page.requests.length).toBe(before);
  });

  it("http is refused like a webhook URL", async () => {
    expect((await refusal(`http://example.com/`, production(["93.184.216.34"]))).message).toMatch(/https/);
  });
});

describe("with private addresses allowed", () => {
  it("reads the page's card with one GET", async () => {
    const before = page.requests.length;
    expect(await fetchPreviewCard(page.url("127.0.0.1", "/card"), allowPrivate)).toEqual({
      title: "Loopback card",
      description: "From the test",
    });
    expect(page.requests.slice(before).map((r) => `${r.method} ${r.path}`)).toEqual(["GET /card"]);
  });

  it("follows a redirect, checking the new address", async () => {
    expect((await fetchPreviewCard(page.url("127.0.0.1", "/moved"), allowPrivate)).title).toBe("Loopback card");
  });

  it("reads at most PAGE_MAX_BYTES of a big page", async () => {
    expect((await fetchPreviewCard(page.url("127.0.0.1", "/big"), allowPrivate)).title).toBe("Loopback card");
  });

  it("says why when there is no card or the page fails", async () => {
    expect((await refusal(page.url("127.0.0.1", "/none"), allowPrivate)).message).toBe(
      "The page has no title, description or image to show.",
    );
    expect((await refusal(page.url("127.0.0.1", "/missing"), allowPrivate)).message).toBe("The page answered HTTP 404.");
  });

  it("gives up at the deadline when the page never answers", async () => {
    const started = Date.now();
    expect((await refusal(hang.url("127.0.0.1", "/"), allowPrivate)).message).toMatch(/did not answer within/);
    expect(Date.now() - started).toBeLessThan(PAGE_TIMEOUT_MS + 3000);
  });
});
