import { describe, expect, it } from "vitest";
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

  it("rejects the batch when run returns the wrong number of results", async () => {
    const run = batched(async (items: number[]) => items.slice(1));
    await expect(run(1)).rejects.toThrow("a batch of 1 gave 0 results");
  });
});
