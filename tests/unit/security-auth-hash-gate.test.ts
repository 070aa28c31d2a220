import { describe, expect, it } from "vitest";
import { hashPassword, verifyPassword } from "../../lib/auth/password.ts";
import { HASH_SLOTS, hashGateState, withHashSlot } from "../../lib/auth/hash-gate.ts";

// Password hashing has a process-wide limit, and sign-ins go before bulk work (lib/auth/hash-gate.ts):
// real scrypt hashes, the order they finish in (not their timing). Thirteen real hashes may take
// seconds on a loaded machine: the first test has a deadline far above that, since it asserts order.

describe("password hashing gate", () => {
  it("a sign-in's hash waits behind the hashes running, not behind a queued bulk job", async () => {
    const stored = await hashPassword("right password");
    const finished: string[] = [];
    const bulk = Array.from({ length: 12 }, (_, i) => hashPassword(`row ${i}`, "bulk").then(() => finished.push(`bulk ${i}`)));
    expect(hashGateState()).toEqual({ running: HASH_SLOTS, waiting: { interactive: 0, bulk: 12 - HASH_SLOTS } });
    const signIn = verifyPassword("right password", stored).then((ok) => {
      finished.push("sign-in");
      return ok;
    });
    expect(await signIn).toBe(true);
    await Promise.all(bulk);
    // Before it finished: the hashes running when it came, and the few that took the other slot
    // while it ran (a loaded machine may let that slot finish more than one); never the queue
    // behind it: at least half of the 12 bulk hashes finish after it (without the gate, all 12 were
    // ahead of it in the thread pool's one queue).
    expect(finished.indexOf("sign-in")).toBeLessThanOrEqual(6);
    expect(finished).toHaveLength(13);
    expect(hashGateState()).toEqual({ running: 0, waiting: { interactive: 0, bulk: 0 } });
  }, 60_000);

  it("never runs more than its slots at once, and hands each freed slot on in order", async () => {
    let running = 0;
    let most = 0;
    const order: number[] = [];
    const release: (() => void)[] = [];
    const jobs = Array.from({ length: 6 }, (_, i) =>
      withHashSlot(i % 2 ? "bulk" : "interactive", async () => {
        running++;
        most = Math.max(most, running);
        order.push(i);
        await new Promise<void>((r) => release.push(r));
        running--;
      }),
    );
    // Release one job at a time, each once it has started.
    for (let done = 0; done < 6; done++) {
      await expect.poll(() => release.length).toBeGreaterThan(0);
      release.shift()!();
      await Promise.resolve();
    }
    await Promise.all(jobs);
    expect(most).toBe(HASH_SLOTS);
    // 0 and 1 took the free slots; then the waiting interactive ones (2, 4) before the bulk ones (3, 5).
    expect(order).toEqual([0, 1, 2, 4, 3, 5]);
  });

  it("a failing hash gives its slot back", async () => {
    await expect(withHashSlot("interactive", () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(hashGateState().running).toBe(0);
  });
});
