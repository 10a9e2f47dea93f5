import { describe, expect, it } from "vitest";
import { createReadTool } from "../../src/tools/builtin/read.js";
import {
  checkInput,
  createToolRegistry,
  defineForeignTool,
  defineTool,
  normaliseInput,
  ok,
} from "../../src/tools/index.js";

const read = createReadTool();
const grepLike = defineTool({
  name: "Search",
  description: "d",
  inputSchema: {
    type: "object",
    properties: {
      pattern: { type: "string" },
      output_mode: { type: "string", enum: ["content", "files_with_matches", "count"] },
      head_limit: { type: "integer", minimum: 1, maximum: 10 },
      options: {
        type: "object",
        properties: { depth: { type: "integer" }, follow: { type: "boolean" } },
        required: ["depth"],
      },
      tags: { type: "array", items: { type: "string" }, maxItems: 2 },
      name: { type: "string", minLength: 3, pattern: "^x" },
    },
    required: ["pattern"],
  } as const,
  execute: async () => ok("ran"),
});

const gate = (tool: typeof read, input: unknown) => {
  const n = normaliseInput(tool.name, input);
  if (!n.ok) return n.message;
  const r = checkInput(tool, n.input, "enforce");
  return r.ok ? "ok" : r.message;
};

describe("the schema gate: one line per case", () => {
  it.each<[unknown, string]>([
    [{ file_path: "/a" }, "ok"],
    [{ file_path: "/a", limit: 3 }, "ok"],
    [{ file_path: "/a", limit: 3.0 }, "ok"],
    [JSON.parse('{"file_path":"/a","limit":3.0}'), "ok"],
    [
      { file_path: "/a", limit: 2.5 },
      "Invalid input for Read: 'limit' must be an integer, got 2.5. The tool was not executed.",
    ],
    [
      { file_path: "/a", limit: "10" },
      `Invalid input for Read: 'limit' must be an integer, got "10" (text). The tool was not executed.`,
    ],
    [
      { file_path: null },
      "Invalid input for Read: missing required parameter 'file_path'. The tool was not executed.",
    ],
    [{ file_path: "/a", offset: null }, "ok"],
    [{}, "Invalid input for Read: missing required parameter 'file_path'. The tool was not executed."],
    [
      { file_paht: "/a" },
      "Invalid input for Read: unknown parameter 'file_paht' — did you mean 'file_path'? The tool was not executed.",
    ],
    [
      { file_paht: "/a", limit: 2.5 },
      "Invalid input for Read: unknown parameter 'file_paht' — did you mean 'file_path'?; 'limit' must be an integer, got 2.5. The tool was not executed.",
    ],
    [
      { file_path: "/a", colour: 1 },
      "Invalid input for Read: unknown parameter 'colour'. The tool was not executed.",
    ],
    [{ file_path: "/a", limit: -5 }, "ok"],
    [
      { file_path: ["/a"] },
      "Invalid input for Read: 'file_path' must be a string, got a list. The tool was not executed.",
    ],
    [
      { file_path: { p: 1 } },
      "Invalid input for Read: 'file_path' must be a string, got an object. The tool was not executed.",
    ],
    [
      { file_path: true },
      "Invalid input for Read: 'file_path' must be a string, got true. The tool was not executed.",
    ],
    [
      JSON.parse('{"file_path":"/a","__proto__":{"x":1}}'),
      "Invalid input for Read: unknown parameter '__proto__'. The tool was not executed.",
    ],
  ])("Read %j", (input, expected) => {
    expect(gate(read, input)).toBe(expected);
  });

  it.each<[unknown, string]>([
    [{ pattern: "x", output_mode: "content" }, "ok"],
    [
      { pattern: "x", output_mode: "lines" },
      "Invalid input for Search: 'output_mode' must be one of 'content', 'files_with_matches', 'count', got \"lines\" (text). The tool was not executed.",
    ],
    [
      { pattern: "x", output_mode: "contents" },
      "Invalid input for Search: 'output_mode' must be one of 'content', 'files_with_matches', 'count', got \"contents\" (text) — did you mean 'content'? The tool was not executed.",
    ],
    [{ pattern: "x", head_limit: 500 }, "ok"],
    [{ pattern: "x", name: "a", tags: ["1", "2", "3"] }, "ok"],
    [{ pattern: "x", options: { depth: 2 } }, "ok"],
    [
      { pattern: "x", options: {} },
      "Invalid input for Search: missing required parameter 'options.depth'. The tool was not executed.",
    ],
    [
      { pattern: "x", options: { depth: 1.5, folow: true } },
      "Invalid input for Search: unknown parameter 'options.folow' — did you mean 'follow'?; 'options.depth' must be an integer, got 1.5. The tool was not executed.",
    ],
    [
      { pattern: "x", tags: ["a", 2] },
      "Invalid input for Search: 'tags.1' must be a string, got 2. The tool was not executed.",
    ],
    [
      { output_mode: 3, head_limit: "x", extra: 1 },
      "Invalid input for Search: unknown parameter 'extra'; missing required parameter 'pattern'; 'output_mode' must be a string, got 3; 'output_mode' must be one of 'content', 'files_with_matches', 'count', got 3; 'head_limit' must be an integer, got \"x\" (text). The tool was not executed.",
    ],
  ])("Search %j", (input, expected) => {
    expect(gate(grepLike, input)).toBe(expected);
  });
});

describe("gate modes", () => {
  const input = normaliseInput("Read", { file_path: "/a", limit: 2.5 });
  if (!input.ok) throw new Error("setup");

  it("off: no check", () => {
    expect(checkInput(read, input.input, "off")).toEqual({ ok: true, input: input.input });
  });

  it("warn: logs the sentence and runs", () => {
    const warnings: string[] = [];
    const r = checkInput(read, input.input, "warn", { debug: () => {}, warn: (m) => warnings.push(m) });
    expect(r.ok).toBe(true);
    expect(warnings).toEqual([
      "Invalid input for Read: 'limit' must be an integer, got 2.5. The tool was not executed. (schemaValidation: warn, so it runs anyway)",
    ]);
  });

  it("enforce: refuses", () => {
    expect(checkInput(read, input.input, "enforce").ok).toBe(false);
  });
});

describe("schemas we cannot compile", () => {
  it("pass unvalidated, with one warning when the tool is registered", () => {
    const odd = defineForeignTool({
      name: "mcp__odd__tool",
      description: "d",
      inputSchema: { type: "object", properties: { a: { type: "no-such-type" } } },
      execute: async (input) => ok(JSON.stringify(input)),
    });
    const registry = createToolRegistry([odd]);
    expect(registry.warnings).toEqual([
      expect.stringMatching(
        /^tool 'mcp__odd__tool': its input schema cannot be compiled \(.+\); its input passes unvalidated$/,
      ),
    ]);
    expect(checkInput(odd, { a: 1 }, "enforce")).toEqual({ ok: true, input: { a: 1 } });
  });
});
