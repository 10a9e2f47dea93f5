import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { restoreKeys, sanitiseKey, sanitiseSchema, sanitiseToolName } from "../../src/tools/index.js";

const VALID_KEY = /^[a-zA-Z0-9_.-]{1,64}$/;

/** Every property key of a schema, at every depth. */
function allKeys(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const n of node) allKeys(n, out);
  else if (typeof node === "object" && node !== null) {
    for (const [k, v] of Object.entries(node)) {
      if (k === "properties" && typeof v === "object" && v !== null) out.push(...Object.keys(v));
      allKeys(v, out);
    }
  }
  return out;
}

describe("sanitiseKey and sanitiseToolName", () => {
  it.each<[string, string]>([
    ["$top", "dollar_top"],
    ["$filter", "dollar_filter"],
    ["@odata.type", "at_odata.type"],
    ["microsoft.graph.conflictBehavior", "microsoft.graph.conflictBehavior"],
    ["with space", "with_space"],
    ["ünïcode", "_n_code"],
    ["ok_key-1.2", "ok_key-1.2"],
  ])("%s → %s", (key, expected) => {
    expect(sanitiseKey(key)).toBe(expected);
  });

  it("cuts long keys with a short deterministic hash", () => {
    const long = `a_${"x".repeat(100)}`;
    const s = sanitiseKey(long);
    expect(s).toMatch(VALID_KEY);
    expect(s.length).toBe(64);
    expect(sanitiseKey(long)).toBe(s);
    expect(sanitiseKey(`b_${"x".repeat(100)}`)).not.toBe(s);
  });

  it("gives empty and all-invalid keys a name", () => {
    expect(sanitiseKey("")).toMatch(/^key_[a-z0-9]{7}$/);
    expect(sanitiseKey("???")).toMatch(/^key_[a-z0-9]{7}$/);
  });

  it("fits tool names to the API and resolves collisions deterministically", () => {
    expect(sanitiseToolName("mcp__github__create_issue")).toBe("mcp__github__create_issue");
    expect(sanitiseToolName("my tool.v2")).toBe("my_tool_v2");
    const taken = new Set(["my_tool_v2"]);
    const second = sanitiseToolName("my tool v2", taken);
    expect(second).toMatch(/^my_tool_v2_[a-z0-9]{7}$/);
    expect(sanitiseToolName("my tool v2", taken)).toBe(second);
    expect(sanitiseToolName("x".repeat(300)).length).toBe(128);
  });
});

describe("sanitiseSchema", () => {
  it("rewrites keys at every depth and maps the model's input back", () => {
    const schema = {
      type: "object",
      properties: {
        $top: { type: "integer" },
        "@odata.type": { type: "string" },
        options: { type: "object", properties: { $skip: { type: "integer" } } },
        list: { type: "array", items: { type: "object", properties: { "a b": { type: "string" } } } },
        choice: { anyOf: [{ type: "object", properties: { $x: { type: "string" } } }, { type: "string" }] },
        ref: { $ref: "#/$defs/Thing" },
      },
      required: ["$top", "$top", "options"],
      $defs: { Thing: { type: "object", properties: { "$inner key": { type: "string" } } } },
    };
    const { schema: out, keys } = sanitiseSchema(schema);
    for (const k of allKeys(out)) expect(k).toMatch(VALID_KEY);
    expect(out.required).toEqual(["dollar_top", "options"]);
    expect(out.$defs).toBeUndefined();
    const modelInput = {
      dollar_top: 25,
      "at_odata.type": "#x",
      options: { dollar_skip: 5 },
      list: [{ a_b: "1" }, { a_b: "2" }],
      choice: { dollar_x: "y" },
      ref: { dollar_inner_key: "z" },
    };
    expect(JSON.parse(JSON.stringify(restoreKeys(modelInput, keys)))).toEqual({
      $top: 25,
      "@odata.type": "#x",
      options: { $skip: 5 },
      list: [{ "a b": "1" }, { "a b": "2" }],
      choice: { $x: "y" },
      ref: { "$inner key": "z" },
    });
  });

  it("keeps colliding keys apart", () => {
    const { schema, keys } = sanitiseSchema({
      type: "object",
      properties: { a_b: {}, "a b": {}, "a-b": {}, "a@b": {}, "a.b": {} },
    });
    const names = Object.keys(schema.properties as object);
    expect(new Set(names).size).toBe(5);
    expect(names[0]).toBe("a_b");
    const input = Object.fromEntries(names.map((n, i) => [n, i]));
    expect(restoreKeys(input, keys)).toEqual({ a_b: 0, "a b": 1, "a-b": 2, "a@b": 3, "a.b": 4 });
  });

  it("turns a dangling or endlessly recursive $ref into a permissive object, not a crash", () => {
    const { schema } = sanitiseSchema({
      type: "object",
      properties: {
        gone: { $ref: "#/$defs/Missing" },
        tree: { $ref: "#/$defs/Node" },
        remote: { $ref: "http://x/y" },
      },
      $defs: { Node: { type: "object", properties: { child: { $ref: "#/$defs/Node" } } } },
    });
    const props = schema.properties as Record<string, Record<string, unknown>>;
    expect(props.gone).toEqual({ type: "object", additionalProperties: true });
    expect(props.remote).toEqual({ type: "object", additionalProperties: true });
    expect((props.tree?.properties as Record<string, unknown> | undefined)?.child).toEqual({
      type: "object",
      additionalProperties: true,
    });
  });

  it("passes input through untouched when nothing was renamed", () => {
    const { keys } = sanitiseSchema({ type: "object", properties: { fine: { type: "string" } } });
    expect(keys).toBeNull();
  });

  it("never throws on garbage", () => {
    for (const junk of [
      null,
      3,
      "x",
      [],
      { type: "object", properties: 5 },
      { properties: { a: null } },
      { allOf: "x" },
    ]) {
      expect(sanitiseSchema(junk).schema.type).toBeDefined();
    }
  });
});

const keyArb = fc.oneof(
  fc.string({ maxLength: 10 }),
  fc.constantFrom(
    "$top",
    "@odata.type",
    "a b",
    "a_b",
    "a-b",
    "x".repeat(70),
    `${"y".repeat(70)}$`,
    "__proto__",
    "constructor",
  ),
);

type Shape =
  | { kind: "leaf" }
  | { kind: "object"; props: [string, Shape][] }
  | { kind: "array"; items: Shape };

const shapeArb: fc.Arbitrary<Shape> = fc.letrec<{ shape: Shape }>((tie) => ({
  shape: fc.oneof(
    { maxDepth: 3, depthIdentifier: "s" },
    fc.constant({ kind: "leaf" } as Shape),
    fc.record({
      kind: fc.constant("object" as const),
      props: fc.uniqueArray(fc.tuple(keyArb, tie("shape")), { maxLength: 4, selector: ([k]) => k }),
    }),
    fc.record({ kind: fc.constant("array" as const), items: tie("shape") }),
  ),
})).shape;

function toSchema(s: Shape): Record<string, unknown> {
  if (s.kind === "leaf") return { type: "string" };
  if (s.kind === "array") return { type: "array", items: toSchema(s.items) };
  const properties: Record<string, unknown> = {};
  for (const [k, v] of s.props)
    Object.defineProperty(properties, k, {
      value: toSchema(v),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return { type: "object", properties };
}

/** An input shaped like the schema, built with the keys the schema uses. */
function inputFor(schema: unknown): unknown {
  const s = schema as Record<string, unknown>;
  if (s.type === "array") return [inputFor(s.items), inputFor(s.items)];
  if (s.type !== "object") return "v";
  const out: Record<string, unknown> = Object.create(null);
  for (const [k, v] of Object.entries((s.properties as object) ?? {})) {
    Object.defineProperty(out, k, {
      value: inputFor(v),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

describe("sanitiser round trip (property)", () => {
  it("sanitise → input with sanitised keys → restore gives the original keys", () => {
    fc.assert(
      fc.property(shapeArb, (shape) => {
        const original = toSchema(
          shape.kind === "object" ? shape : { kind: "object", props: [["root", shape]] },
        );
        const { schema, keys } = sanitiseSchema(original);
        for (const k of allKeys(schema)) expect(k).toMatch(VALID_KEY);
        const restored = restoreKeys(inputFor(schema), keys);
        expect(restored).toEqual(inputFor(original));
      }),
      { numRuns: 2000 },
    );
  });
});
