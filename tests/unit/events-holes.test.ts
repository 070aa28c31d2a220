import { describe, expect, it } from "vitest";
import { serializeEnvelope } from "../../lib/events/index.ts";
import { eventWithHoles } from "../../lib/events/sql.ts";

// lib/events/sql.ts eventWithHoles: an envelope whose values only the recording statement knows
// (a new link's id and time) are left as holes; the pieces with those values put in, as
// recordEventCte does in SQL, are byte for byte the envelope serialized with the values known.

const workspace = { id: 7, slug: "acme", name: 'Acme "quoted" \u2603', plan: "business" };
const at = new Date("2026-11-27T10:00:00.123Z");
const link = (id: unknown, createdOn: unknown) => ({
  id,
  short: "https://s.example/abc",
  code: "abc",
  title: 'a "title" with \\ and \u0000 and a mark-like "\\u0000hole-0"',
  createdOn,
  notes: null,
});

describe("an event with holes (eventWithHoles)", () => {
  it("is the envelope serialized with the values known, once the statement puts them in", () => {
    const event = eventWithHoles(workspace, "link.created", 2, (hole) => ({ link: link(hole(0), hole(1)) }), at)!;
    expect(event.body).toHaveLength(3);
    const filled = event.body[0] + "4711" + event.body[1] + "1795780800" + event.body[2];
    expect(filled).toBe(serializeEnvelope(event.id, "link.created", at, workspace, { link: link(4711, 1795780800) }));
    expect(JSON.parse(filled).data.link).toMatchObject({ id: 4711, createdOn: 1795780800 });
  });

  it('leaves the envelope\'s createdAt to the statement first, with at "statement"', () => {
    const event = eventWithHoles(workspace, "link.created", 1, (hole) => ({ link: link(hole(0), 1) }), "statement")!;
    expect(event.at).toBeNull();
    const filled = event.body[0] + JSON.stringify(at.toISOString()) + event.body[1] + "4711" + event.body[2];
    expect(filled).toBe(serializeEnvelope(event.id, "link.created", at, workspace, { link: link(4711, 1) }));
  });

  it("is the whole envelope in one piece without holes, and nothing on a plan without webhooks", () => {
    const event = eventWithHoles(workspace, "link.updated", 0, () => ({ n: 1 }), at)!;
    expect(event.body).toEqual([serializeEnvelope(event.id, "link.updated", at, workspace, { n: 1 })]);
    expect(eventWithHoles({ ...workspace, plan: "free" }, "link.created", 0, () => ({}), at)).toBeNull();
  });

  it("refuses data that leaves out a hole", () => {
    expect(() => eventWithHoles(workspace, "link.created", 2, (hole) => ({ id: hole(0) }), at)).toThrow(/no hole 1/);
  });
});
