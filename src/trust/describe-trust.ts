import type { CodeItem, RepositoryCode } from "./code-item.js";
import type { CodeChanges } from "./trust-state.js";

/**
 * One line per item, indented, every one (a listing that left some out would ask the user to trust
 * what they were not shown). The text is the files' own: whoever writes it to a terminal makes its
 * control characters printable.
 */
export function codeLines(items: readonly CodeItem[], indent = "  "): string[] {
  return items.map((i) => `${indent}${i.text}`);
}

/** `+` added, `-` removed, `~` changed content: what differs from the code that was trusted. */
export function changeLines(changes: CodeChanges, indent = "  "): string[] {
  const all = [
    ...changes.added.map((i) => ({ ...i, text: `+ ${i.text}` })),
    ...changes.changed.map((i) => ({ ...i, text: `~ ${i.text} (its content changed)` })),
    ...changes.removed.map((i) => ({ ...i, text: `- ${i.text}` })),
  ];
  return codeLines(all, indent);
}

/** What restricted mode holds back, and how to lift it: said once when an untrusted folder runs. */
export const RESTRICTED_SENTENCE =
  "restricted mode: none of it runs (no custom tool, no MCP server of the project, no project hook; its settings' env and baseUrl are not used), calls a project PreToolUse hook would judge are refused, and every list, deny and ask still binds. Review the code and run 'agentmd trust' to let it run.";

/** The notice of a folder run restricted: its code, what changed since it was trusted, how to trust it. */
export function restrictedNotice(code: RepositoryCode, changes?: CodeChanges): string {
  const head = changes
    ? `the code of ${code.dir} changed since it was trusted:`
    : `${code.dir} is not trusted, and its files hold code agentmd would run:`;
  const body = changes ? changeLines(changes) : codeLines(code.items);
  return [`agentmd: ${head}`, ...body, `agentmd: ${RESTRICTED_SENTENCE}`].join("\n");
}
