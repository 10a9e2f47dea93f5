import { describe, expect, it } from "vitest";
import { normaliseInput } from "../../src/tools/index.js";

describe("normaliseInput", () => {
  it.each<[unknown, unknown]>([
    [{ a: 1 }, { a: 1 }],
    ['{"a":1}', { a: 1 }],
    [" ", {}],
    ["", {}],
    [null, {}],
    [undefined, {}],
    [{ nested: { list: [1, { b: 2 }] } }, { nested: { list: [1, { b: 2 }] } }],
  ])("%j → object", (raw, expected) => {
    const r = normaliseInput("T", raw);
    expect(r.ok && JSON.parse(JSON.stringify(r.input))).toEqual(expected);
  });

  it.each<[unknown, string]>([
    ["[1,2]", "Invalid input for T: expected a JSON object, got a list. The tool was not executed."],
    [[1], "Invalid input for T: expected a JSON object, got a list. The tool was not executed."],
    [42, "Invalid input for T: expected a JSON object, got number. The tool was not executed."],
    ["42", "Invalid input for T: expected a JSON object, got number. The tool was not executed."],
    ['"str"', "Invalid input for T: expected a JSON object, got string. The tool was not executed."],
    ["{not json", "Invalid input for T: the input is not a JSON object. The tool was not executed."],
    [true, "Invalid input for T: expected a JSON object, got boolean. The tool was not executed."],
  ])("%j → error naming the tool", (raw, message) => {
    expect(normaliseInput("T", raw)).toEqual({ ok: false, message });
  });

  it("never lets __proto__, constructor or prototype reach a prototype", () => {
    const hostile =
      '{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":2}},"prototype":{"x":3},"a":{"__proto__":{"deep":4}}}';
    for (const raw of [hostile, JSON.parse(hostile)]) {
      const r = normaliseInput("T", raw);
      if (!r.ok) throw new Error("expected an object");
      expect(Object.getPrototypeOf(r.input)).toBe(null);
      expect(Object.keys(r.input)).toEqual(["__proto__", "constructor", "prototype", "a"]);
      expect((r.input as Record<string, unknown>).polluted).toBeUndefined();
      const a = (r.input as Record<string, Record<string, unknown>>).a;
      expect(Object.getPrototypeOf(a)).toBe(null);
      expect(Object.hasOwn(a ?? {}, "__proto__")).toBe(true);
      expect(a?.deep).toBeUndefined();
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).deep).toBeUndefined();
  });

  it("refuses absurd nesting instead of overflowing the stack", () => {
    const deep = `${"[".repeat(5000)}${"]".repeat(5000)}`;
    const r = normaliseInput("T", `{"a":${deep}}`);
    expect(r).toEqual({
      ok: false,
      message: "Invalid input for T: nested more than 64 levels. The tool was not executed.",
    });
  });
});
