import type { RegisteredTool } from "../registry.js";

/**
 * The tools a ToolSearch query finds among `candidates`, best first. `select:A,B` picks tools by
 * exact name (the full `mcp__server__tool` or the part after the server); anything else is
 * keywords: a tool scores for each word found in its name's parts (more) or its description (less),
 * and `+word` marks a word every result must contain. Pure.
 */
export function searchTools(
  query: string,
  candidates: readonly RegisteredTool[],
  max: number,
): RegisteredTool[] {
  const q = query.trim();
  if (q.toLowerCase().startsWith("select:")) {
    const wanted = q
      .slice("select:".length)
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    return wanted.flatMap((w) => {
      const hit = candidates.find(
        (c) => c.tool.name === w || c.apiName === w || shortName(c.tool.name) === w,
      );
      return hit ? [hit] : [];
    });
  }
  const words = q.toLowerCase().split(/\s+/).filter(Boolean);
  const required = words.filter((w) => w.startsWith("+") && w.length > 1).map((w) => w.slice(1));
  // Ranked by the other words; by the required ones when there are no others.
  const others = words.filter((w) => !w.startsWith("+"));
  const terms = others.length > 0 ? others : required;
  if (terms.length === 0) return [];
  const scored = candidates
    .map((c) => ({ c, score: score(c, terms, required) }))
    .filter((x) => x.score > 0)
    .sort((a, b) => b.score - a.score || a.c.tool.name.localeCompare(b.c.tool.name));
  return scored.slice(0, max).map((x) => x.c);
}

/** `mcp__github__get_issue` → `get_issue`; other names as they are. */
function shortName(name: string): string {
  const m = /^mcp__[^_](?:[^_]|_(?!_))*__(.+)$/.exec(name);
  return m ? (m[1] as string) : name;
}

/** Name parts: split on `__`, `_`, `-`, `.` and camelCase, lowercased. */
function nameParts(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[\s_.-]+/)
    .filter(Boolean);
}

function score(c: RegisteredTool, terms: readonly string[], required: readonly string[]): number {
  const name = c.tool.name.toLowerCase();
  const parts = nameParts(c.tool.name);
  const description = c.tool.description.toLowerCase();
  const has = (t: string) => name.includes(t) || description.includes(t);
  if (!required.every(has)) return 0;
  let total = 0;
  for (const t of terms) {
    if (parts.includes(t)) total += 10;
    else if (name.includes(t)) total += 5;
    if (new RegExp(`\\b${escapeRegExp(t)}`).test(description)) total += 2;
  }
  return total;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
