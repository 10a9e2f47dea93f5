/**
 * A plugin's name, a marketplace's name and a plugin's version each become one folder of
 * `~/.claude/plugins/cache/<marketplace>/<plugin>/<version>/` (and of the data folder), so each is
 * checked as one path segment before any file is touched: letters, digits, `.`, `_`, `+` and `-`,
 * starting with a letter or digit (so never `.`, `..`, empty, a `/`, a `\` or a NUL), at most 128
 * characters.
 */

const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,127}$/;

export type SegmentKind = "plugin name" | "marketplace name" | "version";

/** Why `value` cannot be a folder of the plugin cache, or undefined when it can. Pure. */
export function segmentProblem(kind: SegmentKind, value: string): string | undefined {
  if (SEGMENT.test(value)) return undefined;
  return `the ${kind} ${JSON.stringify(value)} cannot name a folder: use letters, digits, '.', '_', '+' and '-', starting with a letter or digit (at most 128)`;
}

export const isSegment = (value: string): boolean => SEGMENT.test(value);

/** `name@marketplace` split at its last `@`, each part a segment; undefined otherwise. Pure. */
export function splitPluginId(id: string): { name: string; market: string } | undefined {
  const at = id.lastIndexOf("@");
  if (at <= 0) return undefined;
  const name = id.slice(0, at);
  const market = id.slice(at + 1);
  return isSegment(name) && isSegment(market) ? { name, market } : undefined;
}
