import { execFile } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BatchedStream, flushLogLines } from "../../lib/log/batched.ts";

// The server's log lines are gathered per event-loop turn and written with one write
// (lib/log/batched.ts): in order, by the turn's end, and nothing left behind when the process exits.

const root = path.resolve(import.meta.dirname, "../..");

function target() {
  const writes: string[] = [];
  return { writes, write: (s: string) => (writes.push(s), true) };
}

describe("BatchedStream", () => {
  it("writes the lines of one turn with one write, in order, before the next turn's timers", async () => {
    const t = target();
    const s = new BatchedStream(t);
    s.write("a\n");
    s.write("b\n");
    s.write("c\n");
    expect(t.writes).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(t.writes).toEqual(["a\nb\nc\n"]);
    s.write("d\n");
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(t.writes).toEqual(["a\nb\nc\n", "d\n"]);
  });

  it("flushLogLines writes every stream's pending lines at once", () => {
    const [t1, t2] = [target(), target()];
    const [s1, s2] = [new BatchedStream(t1), new BatchedStream(t2)];
    s1.write("one\n");
    s2.write("two\n");
    s1.write("three\n");
    flushLogLines();
    expect(t1.writes).toEqual(["one\nthree\n"]);
    expect(t2.writes).toEqual(["two\n"]);
    flushLogLines();
    expect(t1.writes).toHaveLength(1);
  });

  for (const [how, code] of [
    ["process.exit()", "process.exit(3)"],
    ["an uncaught exception", "throw new Error('boom')"],
  ] as const)
    it(`a process that ends by ${how} writes the lines of its last turn`, async () => {
      const script = `
        import { BatchedStream } from "./lib/log/batched.ts";
        const s = new BatchedStream(process.stdout);
        for (let i = 0; i < 1000; i++) s.write("line " + i + "\\n");
        ${code};`;
      const out = await new Promise<string>((resolve) =>
        execFile(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: root }, (_e, stdout) =>
          resolve(stdout),
        ),
      );
      const lines = out.trim().split("\n");
      expect(lines).toHaveLength(1000);
      expect(lines.at(-1)).toBe("line 999");
    });
});
