import { describe, expect, expectTypeOf, it } from "vitest";
import { defineTool, ok, ToolDefinitionError } from "../../src/tools/index.js";
import { text, toolContext } from "../support/tools.js";

describe("defineTool", () => {
  it("closes every object level with additionalProperties: false", () => {
    const tool = defineTool({
      name: "Nested",
      description: "d",
      inputSchema: {
        type: "object",
        properties: {
          options: { type: "object", properties: { depth: { type: "integer" } } },
          items: { type: "array", items: { type: "object", properties: { a: { type: "string" } } } },
          open: { type: "object", additionalProperties: true },
        },
      } as const,
      execute: async () => ok("done"),
    });
    type Node = { additionalProperties?: unknown; items?: Node; properties?: Record<string, Node> };
    const s = tool.inputSchema as Node;
    expect(s.additionalProperties).toBe(false);
    expect(s.properties?.options?.additionalProperties).toBe(false);
    expect(s.properties?.items?.items?.additionalProperties).toBe(false);
    expect(s.properties?.open?.additionalProperties).toBe(true);
    expect(tool.ownsSchema).toBe(true);
    expect([tool.concurrency, tool.interrupt]).toEqual(["sequential", "cooperative"]);
  });

  it("derives the input type from the schema", () => {
    const schema = {
      type: "object",
      properties: { path: { type: "string" }, count: { type: "integer" }, mode: { enum: ["a", "b"] } },
      required: ["path"],
    } as const;
    defineTool<typeof schema>({
      name: "Typed",
      description: "d",
      inputSchema: schema,
      execute: async (input) => {
        expectTypeOf(input.path).toEqualTypeOf<string>();
        expectTypeOf(input.count).toEqualTypeOf<number | undefined>();
        expectTypeOf(input.mode).toEqualTypeOf<"a" | "b" | undefined>();
        return ok(input.path);
      },
    });
  });

  it("rejects a schema that is not an object schema when the tool is defined", () => {
    expect(() =>
      defineTool({
        name: "Bad",
        description: "d",
        inputSchema: { type: "string" } as const,
        execute: async () => ok(""),
      }),
    ).toThrow(ToolDefinitionError);
  });

  it("turns a throw, a rejection or a missing result into an error result naming the tool", async () => {
    const ctx = toolContext("/");
    const thrower = defineTool({
      name: "Thrower",
      description: "d",
      inputSchema: { type: "object" } as const,
      execute: () => {
        throw new Error("boom");
      },
    });
    const rejecter = defineTool({
      name: "Rejecter",
      description: "d",
      inputSchema: { type: "object" } as const,
      execute: () => Promise.reject("nope"),
    });
    const empty = defineTool({
      name: "Empty",
      description: "d",
      inputSchema: { type: "object" } as const,
      execute: async () => undefined as never,
    });
    expect(await thrower.execute({}, ctx)).toEqual({ content: "Thrower failed: boom", isError: true });
    expect(await rejecter.execute({}, ctx)).toEqual({ content: "Rejecter failed: nope", isError: true });
    expect(text(await empty.execute({}, ctx))).toBe("Empty returned no result.");
  });
});
