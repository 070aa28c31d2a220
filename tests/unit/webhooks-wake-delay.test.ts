import { describe, expect, it } from "vitest";
import { IDLE_WAKE_SPACING_MS, WAKE_SPACING_MS, wakeDelay } from "../../lib/webhooks/scheduler.ts";

// lib/webhooks/scheduler.ts wakeDelay: how long a wake-up waits before its claim. Busy (a request
// out or waiting for a turn), claims are spaced WAKE_SPACING_MS apart so a stream of creates does
// not cost a claim each; idle, a wake-up claims at once, even right after the last claim (the
// create after a delivery has been sent), so a delivery leaves within a few ms of its create.

describe("a wake-up's wait before its claim (wakeDelay)", () => {
  const lastClaimAt = 1_000_000;

  it("busy: waits until WAKE_SPACING_MS after the last claim started, then none", () => {
    expect(wakeDelay(lastClaimAt, lastClaimAt + 5, false)).toBe(WAKE_SPACING_MS - 5);
    expect(wakeDelay(lastClaimAt, lastClaimAt + WAKE_SPACING_MS, false)).toBe(0);
    expect(wakeDelay(lastClaimAt, lastClaimAt + 500, false)).toBe(0);
  });

  it("idle: waits at most IDLE_WAKE_SPACING_MS after the last claim, far less than when busy", () => {
    expect(IDLE_WAKE_SPACING_MS).toBeLessThan(WAKE_SPACING_MS / 4);
    expect(wakeDelay(lastClaimAt, lastClaimAt + 1, true)).toBe(IDLE_WAKE_SPACING_MS - 1);
    expect(wakeDelay(lastClaimAt, lastClaimAt + 5, true)).toBe(0);
    expect(wakeDelay(0, lastClaimAt, true)).toBe(0);
  });
});
