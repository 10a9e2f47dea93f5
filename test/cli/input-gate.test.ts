import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { inputGate } from "../../src/cli/terminal/input-gate.js";

const collect = (s: NodeJS.ReadableStream) => {
  const got: string[] = [];
  s.on("data", (d: Buffer) => got.push(d.toString()));
  return got;
};
const tick = () => new Promise((r) => setImmediate(r));

describe("the input gate: one terminal, two readers", () => {
  it("gives the keys to the question while one is open, to the conversation otherwise; raw mode stays the conversation's", async () => {
    const modes: boolean[] = [];
    const terminal = Object.assign(new PassThrough(), {
      isTTY: true,
      setRawMode: (m: boolean) => modes.push(m),
    });
    const gate = inputGate(terminal);
    const repl = collect(gate.input);
    terminal.write("hi");
    const q = gate.borrow();
    const asked = collect(q.input);
    terminal.write("y");
    (q.input as unknown as { setRawMode(m: boolean): void }).setRawMode(false);
    q.release();
    terminal.write("\r");
    (gate.input as unknown as { setRawMode(m: boolean): void }).setRawMode(true);
    await tick();
    expect(repl.join("")).toBe("hi\r");
    expect(asked.join("")).toBe("y");
    expect(modes).toEqual([true]);
    gate.close();
  });

  it("Ctrl-D at the question ends it (its signal aborts) and reaches no reader", async () => {
    const terminal = new PassThrough();
    const gate = inputGate(terminal);
    const repl = collect(gate.input);
    const q = gate.borrow();
    const asked = collect(q.input);
    terminal.write("ab\x04");
    await tick();
    expect(q.ended.aborted).toBe(true);
    expect(asked.join("")).toBe("ab");
    q.release();
    expect(repl).toEqual([]);
    gate.close();
  });
});
