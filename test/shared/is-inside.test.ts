import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isInside } from "../../src/shared/is-inside.js";

describe("isInside", () => {
  const cases: [string, string, boolean][] = [
    ["/proj", "/proj", true],
    ["/proj/a", "/proj", true],
    ["/proj/a/b.txt", "/proj", true],
    ["/proj/..a", "/proj", true],
    ["/projects", "/proj", false],
    ["/proj-b/a", "/proj", false],
    ["/", "/proj", false],
    ["/home/x", "/proj", false],
    ["/proj/../home", "/proj", false],
    ["/etc/hosts", "/", true],
    ["/", "/", true],
    ["/proj/a", "/proj/", true],
  ];
  it.each(cases)("%s inside %s → %s", (child, dir, expected) => {
    expect(isInside(child, dir)).toBe(expected);
  });

  const segment = fc.stringMatching(/^[a-z.]{1,4}$/).filter((s) => s !== "." && s !== "..");
  const absolute = fc.array(segment, { maxLength: 4 }).map((parts) => `/${parts.join("/")}`);

  it("every path is inside the root, and a folder holds each path built below it", () => {
    fc.assert(
      fc.property(absolute, fc.array(segment, { minLength: 1, maxLength: 3 }), (dir, below) => {
        expect(isInside(dir, "/")).toBe(true);
        expect(isInside(path.join(dir, ...below), dir)).toBe(true);
      }),
    );
  });

  it("a sibling that only shares the folder's name as a prefix is outside it", () => {
    fc.assert(
      fc.property(absolute, segment, segment, (parent, name, suffix) => {
        const dir = path.join(parent, name);
        expect(isInside(path.join(parent, `${name}${suffix}`), dir)).toBe(false);
        expect(isInside(parent, dir)).toBe(parent === dir);
      }),
    );
  });
});
