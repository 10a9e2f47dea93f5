import { describe, expect, it } from "vitest";
import { styleFor } from "../../src/cli/io.js";
import { createTextRenderer, printable } from "../../src/cli/render.js";

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
    expect(out).toBe("⏺ Bash rm -rf x ^[[2K^[[0G git status → ok (1 ms)\nhi ^[]0;TITLE\\x07");
  });
});
