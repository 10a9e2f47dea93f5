import { covers } from "./tool-matcher.js";
import type { PermissionList, ToolMatcher } from "./types.js";

/**
 * Whether a list could offer some tool whose name starts with `prefix` (`mcp__github__`), before
 * any such name is known. An MCP server's tool names are learnt only once it runs, so this is what
 * decides whether a run starts the server at all.
 *
 * Contract: sound — whenever `offered(list, [name])` holds for a `name` that starts with `prefix`,
 * this is true. It may say true for a prefix none of whose tools turns out to be offered (a list
 * that names `mcp__github__get_issue` starts the server even if it has no such tool). Pure.
 */
export function mayOfferPrefix(list: PermissionList, prefix: string): boolean {
  if (list.deny.some((d) => !d.constraint && removesAll(d.tool, prefix))) return false;
  if (list.rules === null) return true;
  const removed = (name: string) => list.deny.some((d) => !d.constraint && covers(d.tool, name));
  return list.rules.some((r) => reaches(r.tool, prefix, removed));
}

/** The matcher covers at least one name that starts with `prefix` (and is longer than it). */
function reaches(m: ToolMatcher, prefix: string, removed: (name: string) => boolean): boolean {
  if (m.except.some((e) => e.endsWith("*") && prefix.startsWith(e.slice(0, -1)))) return false;
  switch (m.kind) {
    case "any":
      return true;
    case "prefix":
      return m.value.startsWith(prefix) || prefix.startsWith(m.value);
    case "exact":
      // `*` is in no tool name (`mcp__github__get_*` is not a wildcard): such an entry names nothing.
      return (
        m.value.length > prefix.length &&
        m.value.startsWith(prefix) &&
        !m.value.includes("*") &&
        covers(m, m.value) &&
        !removed(m.value)
      );
  }
}

/** A bare-name deny that removes every name starting with `prefix`. */
function removesAll(m: ToolMatcher, prefix: string): boolean {
  if (m.except.length > 0) return false;
  return m.kind === "any" || (m.kind === "prefix" && prefix.startsWith(m.value));
}
