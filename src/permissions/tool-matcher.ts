import type { ToolMatcher } from "./types.js";

/** Other names of tools: `Agent` is Claude Code's newer name for `Task`; both name it everywhere. */
export const TOOL_ALIASES: Readonly<Record<string, string>> = { Agent: "Task" };

export function canonicalToolName(name: string): string {
  return name === "Agent" ? "Task" : name;
}

/**
 * `*` → every tool; `mcp__github__*` and `mcp__github` → that server's tools; anything else → one
 * tool. An MCP tool is always `mcp__<server>__<tool>` and a server name holds no `__`, so a bare
 * `mcp__github` can name no tool of its own: it means the server, as in Claude Code.
 */
export function toolMatcher(name: string): ToolMatcher {
  const n = canonicalToolName(name);
  if (n === "*") return { kind: "any", value: "", except: [] };
  // The only other wildcard is an MCP server's tools; `Re*` names no tool at all.
  if (/^mcp__[^*]+__\*$/.test(n)) return { kind: "prefix", value: n.slice(0, -1), except: [] };
  if (isMcpServerName(n)) return { kind: "prefix", value: `${n}__`, except: [] };
  return { kind: "exact", value: n, except: [] };
}

/** `mcp__github`: an MCP server named alone (letters, digits, `_` and `-`, no `__` after the prefix). */
export function isMcpServerName(name: string): boolean {
  return /^mcp__[A-Za-z0-9_-]+$/.test(name) && !name.slice(5).includes("__") && !name.endsWith("_");
}

function excluded(name: string, except: readonly string[]): boolean {
  return except.some((e) => (e.endsWith("*") ? name.startsWith(e.slice(0, -1)) : name === e));
}

export function covers(m: ToolMatcher, name: string): boolean {
  const n = canonicalToolName(name);
  const inside = m.kind === "any" || (m.kind === "prefix" ? n.startsWith(m.value) : n === m.value);
  return inside && (m.except.length === 0 || !excluded(n, m.except));
}

/** The tools both matchers cover, or null when they share none. Exact: no tool is gained or lost. */
export function intersectMatchers(a: ToolMatcher, b: ToolMatcher): ToolMatcher | null {
  const except = [...new Set([...a.except, ...b.except])];
  let base: ToolMatcher | null;
  if (a.kind === "any") base = b;
  else if (b.kind === "any") base = a;
  else if (a.kind === "exact" || b.kind === "exact") {
    const [e, o] = a.kind === "exact" ? [a, b] : [b, a];
    base = covers({ ...o, except: [] }, e.value) ? e : null;
  } else if (a.value.startsWith(b.value)) base = a;
  else if (b.value.startsWith(a.value)) base = b;
  else base = null;
  if (base === null) return null;
  if (base.kind === "exact" && excluded(base.value, except)) return null;
  if (
    base.kind === "prefix" &&
    except.some((e) => e.endsWith("*") && base.value.startsWith(e.slice(0, -1)))
  ) {
    return null;
  }
  return { kind: base.kind, value: base.value, except };
}

export function matcherText(m: ToolMatcher): string {
  const head = m.kind === "any" ? "*" : m.kind === "prefix" ? `${m.value}*` : m.value;
  return m.except.length ? `${head} except ${m.except.join(", ")}` : head;
}
