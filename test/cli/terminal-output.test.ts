import { afterEach, describe, expect, it, vi } from "vitest";
import { styleFor } from "../../src/cli/io.js";
import { listing } from "../../src/cli/terminal/listing.js";
import { markdownStream, renderMarkdown } from "../../src/cli/terminal/markdown.js";
import { createProgress } from "../../src/cli/terminal/progress.js";
import { createTextRenderer, type RenderOptions, terminalRendering } from "../../src/cli/terminal/render.js";
import { recapSession } from "../../src/cli/terminal/session-recap.js";
import { HOLD_MS } from "../../src/cli/terminal/tool-lines.js";
import { fitWidth, widthOf, wrapHanging } from "../../src/cli/terminal/width.js";
import type { Definition } from "../../src/definitions/types.js";
import type { RunEvent } from "../../src/loop/events.js";

const plain = styleFor({ isTTY: false }, {});
const colour = styleFor({ isTTY: true }, {});
// biome-ignore lint/suspicious/noControlCharactersInRegex: an escape sequence is what it finds
const ANSI = /\x1b\[/;

const ANSWER = [
  "# Fixed",
  "",
  "The bug is **now safe**, see *calc.py* and `add()` ([docs](https://example.com/docs)).",
  "",
  "- first **point**",
  "- second `point`",
  "  1. nested",
  "",
  "| flag | meaning |",
  "|---|---:|",
  "| --fast | skips checks |",
  "| 日本語 | wide |",
  "",
  "```python",
  "def add(a, b):",
  "    return a + b  # fixed",
  "```",
  "",
].join("\n");

describe("Markdown laid out for a terminal", () => {
  it("without colour: no markers, no escape sequences, lists, links with their address, tables aligned", () => {
    const lines = renderMarkdown(ANSWER, { width: 80, color: false });
    expect(lines.join("\n")).not.toMatch(ANSI);
    expect(lines).toContain("Fixed");
    expect(lines).toContain(
      "The bug is now safe, see calc.py and `add()` (docs (https://example.com/docs)).",
    );
    expect(lines).toEqual(expect.arrayContaining(["• first point", "• second `point`", "  1. nested"]));
    const table = lines.filter((l) => l.startsWith("│") || /^[┌├└]/.test(l));
    expect(table).toEqual([
      "┌────────┬──────────────┐",
      "│ flag   │      meaning │",
      "├────────┼──────────────┤",
      "│ --fast │ skips checks │",
      "│ 日本語 │         wide │",
      "└────────┴──────────────┘",
    ]);
    expect(lines).toEqual(expect.arrayContaining(["  def add(a, b):", "      return a + b  # fixed"]));
  });

  it("in colour: bold, italics, inline code and highlighted code as SGR styles", () => {
    const out = renderMarkdown(ANSWER, { width: 80, color: true }).join("\n");
    expect(out).toContain("\x1b[1mnow safe\x1b[22m");
    expect(out).toContain("\x1b[3mcalc.py\x1b[23m");
    expect(out).toContain("\x1b[36madd()\x1b[39m");
    // python's `def` is a keyword, its comment dim
    expect(out).toContain("\x1b[34mdef\x1b[39m");
    expect(out).toContain("\x1b[2m# fixed\x1b[22m");
    expect(out).not.toContain("**");
  });

  it("keeps every line within the width, wide characters counted as two columns", () => {
    const text = `${"A sentence that goes on and on about 日本語の文字 and more words. ".repeat(4)}\n\n| a | b |\n|---|---|\n| ${"long cell text ".repeat(4)}| 表 |\n`;
    for (const width of [24, 40, 61])
      for (const color of [false, true])
        for (const line of renderMarkdown(text, { width, color }))
          expect(widthOf(line)).toBeLessThanOrEqual(width);
  });

  it("shows control characters in the model's text instead of obeying them", () => {
    expect(renderMarkdown("hi \x1b]0;TITLE\x07 **x**", { width: 80, color: false })).toEqual([
      "hi ^[]0;TITLE\\x07 x",
    ]);
  });

  it("streams a block at a time: a finished block shows before the answer ends, and the whole matches", () => {
    const lines: string[] = [];
    const stream = markdownStream(
      () => ({ width: 60, color: false }),
      (l) => lines.push(l),
    );
    stream.push("First para");
    stream.push("graph **bold**.\n\nSecond");
    expect(lines).toEqual(["First paragraph bold."]);
    for (const piece of ANSWER.match(/[\s\S]{1,5}/g) ?? []) stream.push(piece);
    expect(lines.length).toBeGreaterThan(3);
    stream.flush();
    expect(lines).toEqual(
      renderMarkdown(`First paragraph **bold**.\n\nSecond${ANSWER}`, { width: 60, color: false }),
    );
  });

  it("on a live terminal, shows the unfinished block as it streams, then erases it for its layout", () => {
    let screen = "";
    const lines: string[] = [];
    const stream = markdownStream(
      () => ({ width: 40, color: false }),
      (l) => lines.push(l),
      { write: (s) => (screen += s), indent: "  " },
    );
    stream.push("Thinking **very** slo");
    expect(screen).toBe("  Thinking **very** slo");
    stream.push("wly\nand on\n");
    expect(screen).toBe("  Thinking **very** slowly\n  and on\n");
    stream.push("\nNext");
    // erased from the row it started on (two rows up), then laid out; the next block starts
    expect(screen).toBe("  Thinking **very** slowly\n  and on\n\r\x1b[2A\x1b[J  Next");
    expect(lines).toEqual(["Thinking very slowly", "and on"]);
  });

  it("renders Markdown only on a terminal (without colour under NO_COLOR); a pipe gets the text as written", async () => {
    expect(await terminalRendering({ isTTY: false }, {})).toEqual({});
    expect(await terminalRendering({ isTTY: true }, { TERM: "dumb" })).toEqual({});
    expect((await terminalRendering({ isTTY: true, columns: 50 }, { NO_COLOR: "1" })).markdown).toEqual({
      color: false,
      stream: markdownStream,
    });
    expect((await terminalRendering({ isTTY: true, columns: 50 }, {})).width?.()).toBe(50);
    let out = "";
    const render = createTextRenderer({ write: (s: string) => (out += s) }, plain);
    render({ runId: "r", depth: 0, type: "message_delta", text: "**raw** text\n" });
    expect(out).toBe("**raw** text\n");
  });
});

describe("width-aware lines", () => {
  it("cuts and wraps by columns, never inside an escape sequence", () => {
    expect(fitWidth("日本語のテキスト", 7)).toBe("日本語…");
    expect(widthOf(fitWidth(colour.dim("a long status line here"), 10))).toBe(10);
    expect(fitWidth(colour.dim("a long status line here"), 10).endsWith("\x1b[22m")).toBe(true);
    expect(wrapHanging("⏺ ", "one two three four five", 12)).toEqual(["⏺ one two", "  three four", "  five"]);
  });

  it("the status line fits the terminal's width as it is now", () => {
    const stream = { isTTY: true, columns: 30, written: "", write: (s: string) => (stream.written += s) };
    const progress = createProgress(stream, plain, {});
    progress.update({ runId: "r", depth: 0, type: "tool_start", id: "t", name: "Bash", input: {} });
    progress.update({ runId: "r", depth: 0, type: "tool_output", id: "t", text: "日本語 ".repeat(20) });
    const drawn = stream.written.split("\r\x1b[2K").at(-1) ?? "";
    expect(widthOf(drawn)).toBeLessThanOrEqual(29);
    expect(drawn).toMatch(/^⠙ running Bash · .*…$/);
    stream.columns = 60;
    progress.update({ runId: "r", depth: 0, type: "tool_output", id: "t", text: "日本語 ".repeat(20) });
    const wider = stream.written.split("\r\x1b[2K").at(-1) ?? "";
    expect(widthOf(wider)).toBeGreaterThan(29);
    expect(widthOf(wider)).toBeLessThanOrEqual(59);
    progress.stop();
  });

  it("/agents wraps a long description under itself", () => {
    const defs = [
      {
        surface: "agent",
        name: "reviewer",
        description: "Reviews the diff for bugs, style and tests. ".repeat(3),
      },
    ] as unknown as Definition[];
    const lines = listing(defs, "agent", plain, 40).split("\n");
    expect(lines[0]).toBe("subagents:");
    expect(lines[1]).toBe("  reviewer — Reviews the diff for bugs,");
    expect(lines.slice(2).every((l) => l.startsWith("             ") && widthOf(l) <= 40)).toBe(true);
    expect(lines.slice(1).join(" ").replace(/\s+/g, " ")).toContain(
      "Reviews the diff for bugs, style and tests. Reviews",
    );
    expect(listing(defs, "agent", plain).split("\n")).toHaveLength(2);
  });
});

const ev = (e: Record<string, unknown>) => ({ runId: "r", depth: 0, ...e }) as RunEvent;
const start = (id: string, command: string) =>
  ev({ type: "tool_start", id, name: "Bash", input: { command } });
const end = (id: string, content: string, more: Record<string, unknown> = {}) =>
  ev({ type: "tool_end", id, name: "Bash", decision: "allowed", isError: false, content, ms: 5, ...more });
const batch = (...ids: [string, string][]) =>
  ev({
    type: "message_end",
    turn: 1,
    stopReason: "tool_use",
    content: ids.map(([id, command]) => ({ type: "tool_use", id, name: "Bash", input: { command } })),
  });

function rendered(events: RunEvent[], options: RenderOptions = {}): string[] {
  let out = "";
  const render = createTextRenderer({ write: (s: string) => (out += s) }, plain, options);
  for (const e of events) render(e);
  return out.replace(/\n$/, "").split("\n");
}

describe("tool lines", () => {
  it("previews a successful command's output under its line, cut with a count", () => {
    const output = `${Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join("\n")}\n[exit code 0]`;
    expect(rendered([start("a", "seq 10"), end("a", output)])).toEqual([
      "⏺ Bash seq 10 → ok (5 ms)",
      "  ⎿  line 1",
      "     line 2",
      "     line 3",
      "     … +7 lines",
    ]);
    expect(rendered([start("a", "true"), end("a", "two\nlines\n[exit code 0]")])).toEqual([
      "⏺ Bash true → ok (5 ms)",
      "  ⎿  two",
      "     lines",
    ]);
    // a failure says why in its line, and shows no preview
    expect(rendered([start("a", "false"), end("a", "boom\n[exit code 1]", { isError: true })])).toEqual([
      "⏺ Bash false → error: boom [exit code 1] (5 ms)",
    ]);
  });

  it("fit the terminal: the input gives way to the verdict, and a denial's advice wraps whole", () => {
    const command = `echo ${"日本語 ".repeat(30)}`;
    const advice =
      "Bash(rm -rf build) is not allowed: agent.md's allowed-tools allow only Read. To allow it, add Bash(rm:*) to allowed-tools.";
    const lines = rendered(
      [
        start("a", command),
        end("a", "hi\n[exit code 0]"),
        start("b", "rm -rf build"),
        end("b", advice, { decision: "denied", isError: true }),
      ],
      { width: () => 50 },
    );
    expect(lines.every((l) => widthOf(l) <= 50)).toBe(true);
    expect(lines[0]).toMatch(/^⏺ Bash echo 日本語.*… → ok \(5 ms\)$/);
    const denial = lines.slice(lines.findIndex((l) => l.includes("rm -rf build →")));
    expect(denial.slice(1).every((l) => l.startsWith("  "))).toBe(true);
    expect(denial.join(" ").replace(/\s+/g, " ")).toContain(advice);
  });

  it("print in call order when parallel calls finish out of order; a slow first call holds its place", () => {
    const lines = rendered(
      [
        batch(["a", "cat slow"], ["b", "echo b"], ["c", "echo c"]),
        start("a", "cat slow"),
        start("b", "echo b"),
        start("c", "echo c"),
        end("c", "c\n[exit code 0]"),
        end("b", "b\n[exit code 0]"),
        end("a", "a\n[exit code 0]"),
      ],
      { holdMs: 0 },
    );
    expect(lines).toEqual([
      "⏺ Bash cat slow … running",
      "⏺ Bash echo b … running",
      "⏺ Bash echo c → ok (5 ms)",
      "  ⎿  c",
      "⏺ Bash echo b → ok (5 ms)",
      "  ⎿  b",
      "⏺ Bash cat slow → ok (5 ms)",
      "  ⎿  a",
    ]);
    // finished in order: no pending lines at all
    const inOrder = rendered([
      batch(["a", "echo a"], ["b", "echo b"]),
      start("a", "echo a"),
      start("b", "echo b"),
      end("a", "a\n[exit code 0]"),
      end("b", "b\n[exit code 0]"),
    ]);
    expect(inOrder.filter((l) => l.includes("running"))).toEqual([]);
    expect(inOrder.filter((l) => l.startsWith("⏺")).map((l) => l.slice(0, 13))).toEqual([
      "⏺ Bash echo a",
      "⏺ Bash echo b",
    ]);
  });
});

describe("parallel calls' lines, held a moment for the calls before them", () => {
  afterEach(() => vi.useRealTimers());

  const parallel = [
    batch(["a", "cat slow"], ["b", "echo b"]),
    start("a", "cat slow"),
    start("b", "echo b"),
    end("b", "b\n[exit code 0]"),
  ];

  it("a call that finishes within the hold keeps the order without a pending line", () => {
    vi.useFakeTimers();
    let out = "";
    const render = createTextRenderer({ write: (s: string) => (out += s) }, plain);
    for (const e of parallel) render(e);
    expect(out).toBe("");
    render(end("a", "a\n[exit code 0]"));
    expect(out.split("\n").filter((l) => l.startsWith("⏺"))).toEqual([
      "⏺ Bash cat slow → ok (5 ms)",
      "⏺ Bash echo b → ok (5 ms)",
    ]);
  });

  it("a call still running after the hold gets a pending line, and the lines after it print", () => {
    vi.useFakeTimers();
    let out = "";
    const render = createTextRenderer({ write: (s: string) => (out += s) }, plain);
    for (const e of parallel) render(e);
    vi.advanceTimersByTime(HOLD_MS);
    expect(out.split("\n").slice(0, 2)).toEqual(["⏺ Bash cat slow … running", "⏺ Bash echo b → ok (5 ms)"]);
    render(end("a", "a\n[exit code 0]"));
    expect(out).toContain("⏺ Bash cat slow → ok (5 ms)\n  ⎿  a\n");
  });

  it("the end of the run prints whatever is held", () => {
    let out = "";
    const render = createTextRenderer({ write: (s: string) => (out += s) }, plain);
    for (const e of parallel) render(e);
    render(ev({ type: "run_end", outcome: "aborted", turns: 1, ms: 1 }));
    expect(out).toContain("⏺ Bash echo b → ok (5 ms)");
  });
});

describe("a resumed conversation, shown again", () => {
  it("shows what was typed, the answers' first lines and the tool lines; only the last exchanges", () => {
    const exchange = (n: number): RunEvent[] => [
      ev({ type: "user_message", content: `question ${n}` }),
      ev({ type: "message_delta", text: "never shown twice" }),
      ev({
        type: "message_end",
        turn: 1,
        stopReason: "end_turn",
        content: [{ type: "text", text: `answer **${n}**\n${"more\n".repeat(n === 12 ? 20 : 0)}` }],
      }),
    ];
    const events = [
      ...Array.from({ length: 11 }, (_, i) => exchange(i + 1)).flat(),
      ev({ type: "user_message", content: "question 12" }),
      start("t", "ls"),
      end("t", "a.txt\n[exit code 0]"),
      ev({ type: "user_message", content: [{ type: "tool_result", tool_use_id: "t", content: "a.txt" }] }),
      ...exchange(12).slice(1),
      ev({ depth: 1, type: "message_delta", text: "a subagent's inner words" }),
    ];
    let out = "";
    recapSession(events, { write: (s: string) => (out += s) }, plain, {
      width: () => 60,
      markdown: { color: false, stream: markdownStream },
    });
    const lines = out.split("\n");
    expect(lines[0]).toBe("… 2 earlier messages");
    expect(lines).toContain("› question 3");
    expect(lines).not.toContain("› question 2");
    expect(lines).toContain("answer 3");
    expect(lines).toEqual(expect.arrayContaining(["⏺ Bash ls → ok (5 ms)", "  ⎿  a.txt", "… +9 lines"]));
    expect(out).not.toContain("never shown twice");
    expect(out).not.toContain("inner words");
  });
});
