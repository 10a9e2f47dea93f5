import { describe, expect, it } from "vitest";
import { styleFor } from "../../src/cli/io.js";
import { changePreview } from "../../src/cli/terminal/approval-prompt.js";
import { summariseInput } from "../../src/cli/terminal/render.js";

const plain = styleFor({ isTTY: false }, {});
const colour = styleFor({ isTTY: true }, {});

describe("what a person sees of a call", () => {
  it("summarises inputs of several fields by what they act on, not as JSON", () => {
    expect(summariseInput({ command: "npm test", description: "run the tests" })).toBe("npm test");
    expect(summariseInput({ file_path: "src/a.ts", old_string: "a", new_string: "b" })).toBe("src/a.ts");
    expect(summariseInput({ description: "d", prompt: "p", subagent_type: "reviewer" })).toBe("reviewer: d");
    expect(summariseInput({ a: 1, b: 2 })).toBe('{"a":1,"b":2}');
  });

  it("shows an edit's change as removed and added lines before the question", () => {
    const input = {
      file_path: "calc.py",
      old_string: "def add(a, b):\n    return a - b\n",
      new_string: "def add(a, b):\n    return a + b\n",
    };
    expect(changePreview("Edit", input, plain)?.split("\n")).toEqual([
      "    def add(a, b):",
      "  -     return a - b",
      "  +     return a + b",
    ]);
    expect(changePreview("Edit", input, colour)).toContain("\x1b[31m  -     return a - b\x1b[39m");
    expect(changePreview("Edit", input, colour)).toContain("\x1b[32m  +     return a + b\x1b[39m");
  });

  it("shows what a Write would write, cut at 40 lines", () => {
    const content = Array.from({ length: 50 }, (_, i) => `line ${i}`).join("\n");
    const shown = changePreview("Write", { file_path: "x", content }, plain)?.split("\n") ?? [];
    expect(shown[0]).toBe("  + line 0");
    expect(shown).toHaveLength(41);
    expect(shown[40]).toBe("    … 10 more lines");
    expect(changePreview("Bash", { command: "ls" }, plain)).toBeUndefined();
  });
});
