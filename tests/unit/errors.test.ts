import { describe, expect, it } from "vitest";
import { z } from "zod";
import { actionFailure } from "../../lib/actions/result.ts";
import { errorBody, failureResponse } from "../../lib/api/respond.ts";
import { parseInput, ServiceError } from "../../lib/errors.ts";
import { idSchema } from "../../lib/ids.ts";
import { can, PERMISSIONS } from "../../lib/workspaces/access.ts";
import { captureLogs } from "../support/logs.ts";

// The one error type and its mappers (API body, server-action result).

const schema = z.strictObject({
  url: z.string().min(1, "must be a URL"),
  targeting: z.strictObject({ ios: z.string().min(1, "must be a URL") }).optional(),
});

describe("parseInput", () => {
  it("returns the parsed value or throws a validation ServiceError with an issue per problem", () => {
    expect(parseInput(schema, { url: "x" })).toEqual({ url: "x" });
    const e = (() => {
      try {
        parseInput(schema, { url: "", targeting: { ios: "" } });
      } catch (err) {
        return err;
      }
    })();
    expect(e).toBeInstanceOf(ServiceError);
    expect((e as ServiceError).issues).toEqual([
      { path: "url", message: "must be a URL" },
      { path: "targeting.ios", message: "must be a URL" },
    ]);
    expect((e as ServiceError).message).toBe("must be a URL");
    expect(errorBody(e as ServiceError)).toEqual({ error: "validation", messages: ["url: must be a URL", "targeting.ios: must be a URL"] });
  });

  it("turns input zod cannot walk into a validation error, never a crash", () => {
    const hostile = Object.defineProperty({}, "url", {
      enumerable: true,
      get() {
        throw new Error("boom");
      },
    });
    expect(() => parseInput(schema, hostile)).toThrow(ServiceError);
    let deep: unknown = "x";
    for (let i = 0; i < 10_000; i++) deep = { a: deep };
    expect(() => parseInput(schema, deep)).toThrow(ServiceError);
  });
});

describe("mappers", () => {
  it("a foreign error with a string code is not a ServiceError: the API answers a generic 500", async () => {
    const prisma = Object.assign(new Error("Value out of range for the type: 99999999999"), { code: "P2020" });
    const log = captureLogs();
    try {
      const r = failureResponse(prisma, "test");
      expect(r.status).toBe(500);
      expect(await r.text()).not.toMatch(/out of range|P2020/);
    } finally {
      log.restore();
    }
    expect(() => actionFailure(prisma)).toThrow(prisma);
  });

  it("form fields come from issue paths; other problems stay in the message", () => {
    const e = ServiceError.validation([
      { path: "url", message: "must be a URL" },
      { path: "targeting.geo.US", message: "must be a URL" },
      { path: "", message: "Body is not valid JSON." },
    ]);
    expect(actionFailure(e, ["url", "targeting"])).toEqual({
      ok: false,
      code: "validation",
      error: "Body is not valid JSON.",
      fields: { url: "url: must be a URL", targeting: "targeting.geo.US: must be a URL" },
    });
    expect(actionFailure(ServiceError.aliasTaken("go"), ["alias"])).toMatchObject({
      code: "alias_taken",
      fields: { alias: 'The alias "go" is already taken on that domain.' },
    });
    expect(actionFailure(ServiceError.quota("MaxLinks", 5, 5))).toMatchObject({ code: "quota", key: "MaxLinks" });
    expect(actionFailure(ServiceError.forbidden("No."))).toEqual({ ok: false, code: "forbidden", error: "No." });
  });
});

describe("ids and permissions", () => {
  it("an id is a positive int4: anything else is a validation error naming the field", () => {
    const ref = z.object({ id: idSchema });
    expect(parseInput(ref, { id: 7 })).toEqual({ id: 7 });
    for (const bad of [0, -1, 1.5, 2_147_483_648, 99_999_999_999, "7", null, { gt: 0 }, [1]]) {
      expect(() => parseInput(ref, { id: bad }), JSON.stringify(bad)).toThrow(ServiceError);
      try {
        parseInput(ref, { id: bad });
      } catch (e) {
        expect((e as ServiceError).issues[0].path).toBe("id");
      }
    }
  });

  it("each permission has a minimum role; higher roles hold it too", () => {
    expect(can("member", "links.write")).toBe(true);
    expect(can("member", "webhooks.manage")).toBe(false);
    expect(can("admin", "members.manage")).toBe(true);
    expect(can("admin", "owners.manage")).toBe(false);
    expect(can("owner", "owners.manage")).toBe(true);
    for (const p of Object.keys(PERMISSIONS) as (keyof typeof PERMISSIONS)[]) expect(can("owner", p)).toBe(true);
  });
});
