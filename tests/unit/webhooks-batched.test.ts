import { describe, expect, it, vi } from "vitest";
import { batched } from "../../lib/webhooks/batched.ts";

// The engine's group commit (lib/webhooks/batched.ts): the first call runs alone and at once, calls
// made while a run is in progress share the next one, and an error reaches only its own batch.

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { open, opened };
}

describe("batched", () => {
  it("runs the first call alone, then everything that arrived meanwhile as one batch", async () => {
    const runs: number[][] = [];
    const first = gate();
    const run = batched(async (items: number[]) => {
      runs.push(items);
      if (runs.length === 1) await first.opened;
      return items.map((i) => i * 10);
    });
    const a = run(1);
    const rest = [run(2), run(3), run(4)];
    expect(run.queued()).toBe(3);
    first.open();
    expect(await a).toBe(10);
    expect(await Promise.all(rest)).toEqual([20, 30, 40]);
    expect(runs).toEqual([[1], [2, 3, 4]]);
  });

  it("never puts more than maxBatch items in one run", async () => {
    const sizes: number[] = [];
    const first = gate();
    const run = batched(async (items: number[]) => {
      sizes.push(items.length);
      if (sizes.length === 1) await first.opened;
      return items;
    }, 3);
    const all = [run(0), ...Array.from({ length: 7 }, (_, i) => run(i + 1))];
    first.open();
    expect(await Promise.all(all)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(sizes).toEqual([1, 3, 3, 1]);
  });

  it("rejects every call of a failed batch, and only those", async () => {
    const first = gate();
    let runs = 0;
    const run = batched(async (items: string[]) => {
      runs++;
      if (runs === 1) {
        await first.opened;
        throw new Error("statement failed");
      }
      return items.map((s) => s.toUpperCase());
    });
    const failed = [run("a")];
    const next = [run("b"), run("c")];
    first.open();
    await expect(failed[0]).rejects.toThrow("statement failed");
    expect(await Promise.all(next)).toEqual(["B", "C"]);
  });

  it("with spacingMs, starts runs that far apart and gives calls made meanwhile to the next run", async () => {
    vi.useFakeTimers();
    try {
      const runs: { at: number; items: number[] }[] = [];
      const run = batched(
        async (items: number[]) => {
          runs.push({ at: performance.now(), items });
          return items;
        },
        100,
        20,
      );
      const start = performance.now();
      // the first call of an idle engine runs at once
      expect(await run(1)).toBe(1);
      // calls arriving 5 ms apart (an endpoint's paced attempts) wait for the spacing, together
      const later: Promise<number>[] = [];
      for (const i of [2, 3, 4]) {
        await vi.advanceTimersByTimeAsync(5);
        later.push(run(i));
      }
      expect(runs.length).toBe(1);
      await vi.advanceTimersByTimeAsync(5);
      expect(await Promise.all(later)).toEqual([2, 3, 4]);
      expect(runs.map((r) => r.items)).toEqual([[1], [2, 3, 4]]);
      expect(runs[1].at - start).toBeGreaterThanOrEqual(20);
      // after a quiet spell longer than the spacing, a call runs at once again
      await vi.advanceTimersByTimeAsync(50);
      const at = performance.now();
      expect(await run(5)).toBe(5);
      expect(runs[2].at).toBe(at);
    } finally {
      vi.useRealTimers();
    }
  });

  it("rejects the batch when run returns the wrong number of results", async () => {
    const run = batched(async (items: number[]) => items.slice(1));
    await expect(run(1)).rejects.toThrow("a batch of 1 gave 0 results");
  });
});
