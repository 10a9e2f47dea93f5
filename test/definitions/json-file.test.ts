import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { firstJsonError, parseJsonText } from "../../src/definitions/json-file.js";

describe("where JSON text goes wrong", () => {
  it("finds no error in any JSON the runtime writes", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.boolean(), (v, pretty) => {
        const text = JSON.stringify(v, null, pretty ? 2 : undefined);
        expect(firstJsonError(text)).toBe(text.length);
      }),
    );
  });

  it("agrees with the runtime's parser on what is JSON", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (text) => {
        let valid = true;
        try {
          JSON.parse(text);
        } catch {
          valid = false;
        }
        const at = firstJsonError(text);
        if (valid) expect(at).toBe(text.length);
        else expect(at).toBeLessThanOrEqual(text.length);
      }),
    );
  });

  it.each([
    ['{\n  "a": [1,\n  ]\n}', 3, 3],
    ['{\n  "a": 1\n  "b": 2\n}', 3, 3],
    ['{"a": tru}', 1, 7],
    ['{"a": "x', 1, 9],
    ["", 1, 1],
  ])("%j is wrong at line %i, column %i", (text, line, column) => {
    const r = parseJsonText(text);
    expect(r.kind).toBe("bad");
    if (r.kind === "bad") expect([r.line, r.column]).toEqual([line, column]);
  });
});

describe("a key given twice in one object", () => {
  it.each([
    ['{"permissions":{"deny":["Bash"],"deny":[]}}', 1, 33, '"deny"'],
    ['{\n  "a": 1,\n  "b": {"x": 1},\n  "a": 2\n}', 4, 3, '"a"'],
    ['{"permissions":{"deny":["Bash"],\n "de\\u006ey":[]}}', 2, 2, '"de\\u006ey"'],
    ['[{"a": 1}, {"a": 2, "a": 3}]', 1, 21, '"a"'],
  ])("%j is an error at line %i, column %i", (text, line, column, key) => {
    const r = parseJsonText(text);
    expect(r.kind).toBe("bad");
    if (r.kind === "bad") {
      expect([r.line, r.column]).toEqual([line, column]);
      expect(r.message).toContain(`has the key ${key} twice`);
    }
  });

  it("is never reported for JSON the runtime writes", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.boolean(), (v, pretty) => {
        expect(parseJsonText(JSON.stringify(v, null, pretty ? 2 : undefined)).kind).toBe("ok");
      }),
    );
  });
});
