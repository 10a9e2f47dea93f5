import { describe, expect, it } from "vitest";
import { styleFor } from "../../src/cli/io.js";
import { createTextRenderer, printable, summary } from "../../src/cli/terminal/render.js";

describe("rendering never lets output drive the terminal", () => {
  it("shows control characters instead of obeying them", () => {
    expect(printable("ok\u001b[2K\u001b[0Gfake\u0007\r\n")).toBe("ok^[[2K^[[0Gfake\\x07\\x0d\n");
    expect(printable("a\tb\nc", false)).toBe("a\tb\\x0ac");
  });

  it("prints a tool line whose input tries to erase itself as visible text", () => {
    let out = "";
    const render = createTextRenderer({ write: (s: string) => (out += s) }, styleFor({ isTTY: false }, {}));
    render({
      runId: "r",
      depth: 0,
      type: "tool_start",
      id: "t",
      name: "Bash",
      input: { command: "rm -rf x \u001b[2K\u001b[0G git status" },
    });
    render({
      runId: "r",
      depth: 0,
      type: "tool_end",
      id: "t",
      name: "Bash",
      decision: "allowed",
      isError: false,
      content: "",
      ms: 1,
    });
    render({ runId: "r", depth: 0, type: "message_delta", text: "hi \u001b]0;TITLE\u0007" });
    expect(out).toBe(
      "⏺ Bash rm -rf x ^[[2K^[[0G git status → ok (1 ms)\n  ⎿  (no output)\nhi ^[]0;TITLE\\x07",
    );
  });
});

describe("the todo list and the API's own calls", () => {
  const rendered = (events: Parameters<ReturnType<typeof createTextRenderer>>[0][]) => {
    let out = "";
    const render = createTextRenderer({ write: (s: string) => (out += s) }, styleFor({ isTTY: false }, {}));
    for (const e of events) render(e);
    return out;
  };

  it("shows the todos with a mark for each status, indented for a subagent", () => {
    expect(
      rendered([
        {
          runId: "r",
          depth: 1,
          type: "todos",
          todos: [
            { content: "Read the code", status: "completed" },
            { content: "Fix the bug", status: "in_progress", activeForm: "Fixing the bug" },
            { content: "Run the tests\u001b[2K", status: "pending" },
          ],
        },
      ]),
    ).toBe("  ⏺ Todos\n    ☑ Read the code\n    ◐ Fix the bug\n    ☐ Run the tests^[[2K\n");
  });

  it("shows a web search as a tool line with what came back", () => {
    expect(
      rendered([
        {
          runId: "r",
          depth: 0,
          type: "server_tool",
          id: "s",
          name: "WebSearch",
          input: { query: "agentmd docs" },
          isError: false,
          content: "1 result: agentmd docs (docs.example.com)",
        },
      ]),
    ).toBe("⏺ WebSearch agentmd docs → 1 result: agentmd docs (docs.example.com)\n");
  });

  it("counts web searches in the closing summary", () => {
    const usage = {
      input_tokens: 1200,
      output_tokens: 30,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      server_tool_use: { web_search_requests: 1 },
    };
    const r = {
      sessionId: "s",
      runId: "r",
      outcome: "done" as const,
      text: "",
      turns: 2,
      usage,
      costUsd: 0.0141,
      messages: [],
    };
    expect(summary(r, 1500, styleFor({ isTTY: false }, {}))).toBe(
      "— done · 2 turns · 1,200 in / 30 out tokens (cache 0 read, 0 written) · 1 web search · $0.0141 · 1.5 s",
    );
  });
});
