import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ServiceError } from "../../lib/errors.ts";
import { bearerToken } from "../../lib/api/handler.ts";
import { buildOpenApiDocument } from "../../lib/api/openapi.ts";
import { queryObject, readJsonBody } from "../../lib/api/request.ts";
import { errorBody, failureResponse, unauthorizedResponse } from "../../lib/api/respond.ts";
import { isApiUrl, normalizeApiUrl } from "../../lib/http/api-url.ts";
import { captureLogs } from "../support/logs.ts";

const schema = z.strictObject({ url: z.string() });
const post = (body: BodyInit | null, contentType: string | null = "application/json") =>
  new Request("http://x.test/api/v1/links", {
    method: "POST",
    body,
    headers: contentType ? { "content-type": contentType } : {},
    duplex: "half",
  } as RequestInit);
const refusal = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (e) {
    return errorBody(e as ServiceError);
  }
  throw new Error("expected a refusal");
};

describe("bearerToken", () => {
  it("reads the token of a Bearer header, scheme in any case", () => {
    expect(bearerToken("Bearer lh_abc")).toBe("lh_abc");
    expect(bearerToken("bearer lh_abc")).toBe("lh_abc");
    for (const h of [null, "", "Bearer", "Bearer ", "Basic lh_abc", "lh_abc", "Bearer a b"]) expect(bearerToken(h), String(h)).toBeNull();
  });
});

describe("error bodies", () => {
  it("carry exactly the fields of the error table", () => {
    const polluted = ServiceError.aliasTaken("x");
    (polluted.extra as Record<string, unknown>).internal = "secret";
    expect(errorBody(polluted)).toEqual({ error: "alias_taken", alias: "x" });
    expect(errorBody(ServiceError.quota("MaxLinks", 5, 5))).toEqual({
      error: "quota",
      key: "MaxLinks",
      limit: 5,
      current: 5,
      upgrade: true,
    });
    expect(errorBody(ServiceError.ambiguous("c", [null, "a.test"]))).toEqual({
      error: "ambiguous_code",
      code: "c",
      domains: [null, "a.test"],
    });
  });

  it("401 is always the same bytes", async () => {
    expect(await unauthorizedResponse().text()).toBe('{"error":"unauthorized"}');
    expect(unauthorizedResponse().status).toBe(401);
  });

  it("an unexpected failure is a 500 with a reference in the body, the header and the log (with the stack)", async () => {
    const log = captureLogs();
    const r = failureResponse(new Error("database on fire"), "POST /api/v1/links", {
      "X-RateLimit-Limit": "30",
      "X-RateLimit-Remaining": "3",
    });
    const body = await r.json();
    expect(r.status).toBe(500);
    expect(Object.keys(body)).toEqual(["error", "message", "reference"]);
    expect(r.headers.get("x-error-reference")).toBe(body.reference);
    expect(r.headers.get("x-ratelimit-remaining")).toBe("3");
    log.restore();
    expect(log.text()).toContain(body.reference);
    expect(log.text()).toMatch(/database on fire\n\s+at /);
  });
});

describe("request reading", () => {
  it("parses a JSON body through the schema", async () => {
    expect(await readJsonBody(post('{"url":"u"}'), schema)).toEqual({ url: "u" });
    expect(await readJsonBody(post('{"url":"u"}', "application/json; charset=utf-8"), schema)).toEqual({ url: "u" });
  });

  // The error shape is fixed ({ error: "validation", messages: [non-empty strings] }); the wording
  // of the messages is not, so only the field a message is about is checked.
  const validationMessages = async (p: Promise<unknown>) => {
    const body = (await refusal(p)) as { error: string; messages: string[] };
    expect(Object.keys(body).sort()).toEqual(["error", "messages"]);
    expect(body.error).toBe("validation");
    expect(body.messages.length).toBeGreaterThan(0);
    for (const m of body.messages) expect(typeof m === "string" && m.trim().length > 0).toBe(true);
    return body.messages;
  };

  it("refuses wrong content types, empty, invalid, oversized and unknown-field bodies as validation", async () => {
    await validationMessages(readJsonBody(post('{"url":"u"}', "text/plain"), schema));
    await validationMessages(readJsonBody(post('{"url":"u"}', null), schema));
    await validationMessages(readJsonBody(post(""), schema));
    await validationMessages(readJsonBody(post("{"), schema));
    await validationMessages(readJsonBody(post(JSON.stringify({ url: "x".repeat(2000) })), schema, 1000));
    await validationMessages(readJsonBody(post(new Uint8Array([0x7b, 0xff, 0x7d])), schema));
    expect((await validationMessages(readJsonBody(post('{"url":"u","extra":1}'), schema))).join(" ")).toMatch(/\bextra\b/);
  });

  it("refuses a query parameter given twice, naming it", () => {
    expect(queryObject(new URL("http://x/?a=1&b=2"))).toEqual({ a: "1", b: "2" });
    let body: { error: string; messages: string[] } | undefined;
    try {
      queryObject(new URL("http://x/?a=1&a=2&b=3"));
    } catch (e) {
      body = errorBody(e as ServiceError) as typeof body;
    }
    expect(body?.error).toBe("validation");
    expect(body?.messages).toHaveLength(1);
    expect(body?.messages[0]).toMatch(/\ba\b/);
  });
});

describe("API path normalization", () => {
  it("leaves good paths alone and makes bad escapes and dot segments routable", () => {
    expect(normalizeApiUrl("/api/v1/links/abc?domain=x")).toBe("/api/v1/links/abc?domain=x");
    expect(normalizeApiUrl("/api/v1/links/a%2Fb")).toBe("/api/v1/links/a%2Fb");
    expect(normalizeApiUrl("/api/v1/links/%zz")).toBe("/api/v1/links/%25zz");
    expect(normalizeApiUrl("/api/v1/links/%ED%A0%80")).toBe("/api/v1/links/%EF%BF%BD%EF%BF%BD%EF%BF%BD");
    expect(normalizeApiUrl("/api/v1/links/..")).toBe("/api/v1/links/%252E%252E");
    expect(normalizeApiUrl("/api/v1//links/")).toBe("/api/v1/links");
    expect(isApiUrl("/api/v1")).toBe(true);
    expect(isApiUrl("/api/v1/links")).toBe(true);
    expect(isApiUrl("/api/v10")).toBe(false);
    expect(isApiUrl("/api/auth/session")).toBe(false);
  });
});

describe("OpenAPI document", () => {
  it("is OpenAPI 3.1 with every operation, a curl example each, and every $ref resolving", () => {
    const doc = buildOpenApiDocument() as {
      openapi: string;
      paths: Record<string, Record<string, { "x-codeSamples": unknown[] }>>;
      components: { schemas: Record<string, unknown> };
    };
    expect(doc.openapi).toBe("3.1.0");
    const ops = Object.values(doc.paths).flatMap((p) => Object.values(p));
    expect(ops).toHaveLength(18);
    for (const op of ops) expect(op["x-codeSamples"]).toHaveLength(1);
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/(schemas|headers)\/([^"]+)"/g)];
    expect(refs.length).toBeGreaterThan(10);
    for (const [, kind, name] of refs) expect((doc.components as Record<string, Record<string, unknown>>)[kind][name], name).toBeDefined();
  });
});
