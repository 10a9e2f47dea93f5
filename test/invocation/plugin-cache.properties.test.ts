import { existsSync, readdirSync, realpathSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isSegment, segmentProblem, splitPluginId } from "../../src/definitions/plugin-segment.js";
import { cacheFolder, pluginId } from "../../src/invocation/plugin-install.js";
import { ConfigError } from "../../src/shared/errors.js";
import { isInside } from "../../src/shared/is-inside.js";
import { tempDir } from "../support/fixtures.js";
import { writeFiles } from "../support/tools.js";

/**
 * A plugin's name, a marketplace's name and a version are path segments: whatever strings a
 * marketplace or plugin.json holds, an accepted triple names a folder exactly three levels inside
 * the plugin cache, and a refused one throws before anything is made — never a folder outside it.
 */

let dir: string;
let cleanup: () => void;
beforeAll(() => {
  ({ dir, cleanup } = tempDir());
  writeFiles(dir, { "home/keep/precious.txt": "mine\n" });
});
afterAll(() => cleanup());

/** Strings near the ways out: separators, dots, NUL, the empty string, and any printable text. */
const part = fc.oneof(
  fc.constantFrom(
    "",
    ".",
    "..",
    "...",
    "/",
    "\\",
    "\0",
    "a/..",
    "../a",
    "a\\b",
    "~",
    "-x",
    "1.0.0",
    "v1+b.2",
    "a..b",
  ),
  fc.string({ maxLength: 12 }),
  fc.stringMatching(/^[A-Za-z0-9._+\-/\\]{1,10}$/),
  fc.array(fc.constantFrom("..", ".", "a", "/", "\\", "%2e"), { maxLength: 6 }).map((a) => a.join("")),
);

describe("plugin cache folders", () => {
  it("an accepted name, marketplace and version name a folder three levels inside the cache; any other is refused before anything is made", () => {
    const pluginsDir = path.join(dir, "home/.claude/plugins");
    const cache = path.join(pluginsDir, "cache");
    fc.assert(
      fc.property(part, part, part, (market, name, version) => {
        const accepted = [market, name, version].every(isSegment);
        let folder: string | undefined;
        try {
          folder = cacheFolder(pluginsDir, market, name, version);
        } catch (e) {
          expect(e).toBeInstanceOf(ConfigError);
        }
        expect(folder !== undefined).toBe(accepted);
        if (folder !== undefined) {
          expect(path.relative(cache, folder).split(path.sep)).toEqual([market, name, version]);
          expect(isInside(realpathSync(path.dirname(folder)), realpathSync(cache))).toBe(true);
        }
        expect(readdirSync(path.join(dir, "home/keep"))).toEqual(["precious.txt"]);
        expect(readdirSync(dir).sort()).toEqual(["home"]);
      }),
      { numRuns: 1500 },
    );
    expect(existsSync(cache)).toBe(true);
  });

  it("a segment is never '.', '..', empty, or holds a separator or NUL; the id parsers agree", () => {
    fc.assert(
      fc.property(part, part, (name, market) => {
        const ok = isSegment(name);
        expect(ok).toBe(segmentProblem("plugin name", name) === undefined);
        if (ok) {
          expect([".", ".."]).not.toContain(name);
          expect(name).not.toMatch(/[/\\\0]/);
          expect(path.basename(name)).toBe(name);
          expect(path.normalize(name)).toBe(name);
        }
        const id = `${name}@${market}`;
        const both = isSegment(name) && isSegment(market);
        expect(splitPluginId(id) !== undefined).toBe(both);
        if (both) expect(pluginId(id)).toEqual({ name, market });
        else expect(() => pluginId(id)).toThrow(ConfigError);
      }),
      { numRuns: 2000 },
    );
  });
});
