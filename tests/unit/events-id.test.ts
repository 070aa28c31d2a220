import { describe, expect, it } from "vitest";
import { newEventId } from "../../lib/events/index.ts";

// Event ids (lib/events/index.ts newEventId): the contract's shape, and ordered by the time they
// were made, so the indexes that lead with them grow at one end.

describe("event ids", () => {
  it("are evt_ and 32 lowercase hex digits, the first 12 the time in ms", () => {
    const at = Date.UTC(2026, 11, 8, 3, 0, 0, 123);
    const id = newEventId(at);
    expect(id).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(parseInt(id.slice(4, 16), 16)).toBe(at);
    expect(newEventId()).toMatch(/^evt_[0-9a-f]{32}$/);
  });

  it("made later sort after, as text (PostgreSQL's order of the primary key)", () => {
    const start = Date.UTC(2026, 0, 1);
    const ids = Array.from({ length: 50 }, (_, i) => newEventId(start + i * 7));
    expect([...ids].sort()).toEqual(ids);
  });

  it("made in the same millisecond are still distinct", () => {
    const at = Date.now();
    const ids = new Set(Array.from({ length: 10_000 }, () => newEventId(at)));
    expect(ids.size).toBe(10_000);
  });
});

describe("link.clicked event ids", () => {
  it("are derived from the click (its place in the feed and its time), the same every time, and later clicks' sort after", async () => {
    const { clickedEventId } = await import("../../lib/clicks/deliveries.ts");
    const start = Date.UTC(2026, 0, 1);
    const at = (tx: number, seq: number, ms: number) => clickedEventId({ tx: String(tx), seq: String(seq) }, ms);
    expect(at(1234, 5, start)).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(parseInt(at(1234, 5, start).slice(4, 16), 16)).toBe(start);
    expect(at(1234, 5, start)).toBe(at(1234, 5, start));
    expect(at(1234, 5, start)).not.toBe(at(1234, 6, start));
    const later = Array.from({ length: 50 }, (_, i) => at(1000 + i, i % 4, start + i * 3));
    expect([...later].sort()).toEqual(later);
  });
});
