/**
 * Tools agentmd itself provides. `Agent` is Claude Code's newer name for `Task` and is accepted as
 * an alias of it everywhere.
 */
export const BUILTIN_TOOL_NAMES: readonly string[] = [
  "Read",
  "Write",
  "Edit",
  "Glob",
  "Grep",
  "Bash",
  "WebFetch",
  "Task",
  "Agent",
  "Skill",
];

/**
 * Claude Code tools that agentmd does not provide. Lists copied from Claude Code projects name
 * them often; they stay in the list (a custom tool may supply one) but offer nothing by default.
 */
export const FOREIGN_TOOL_NAMES: readonly string[] = [
  "AskUserQuestion",
  "BashOutput",
  "EnterPlanMode",
  "ExitPlanMode",
  "KillBash",
  "KillShell",
  "LS",
  "ListMcpResourcesTool",
  "MultiEdit",
  "NotebookEdit",
  "NotebookRead",
  "ReadMcpResourceTool",
  "SlashCommand",
  "TaskOutput",
  "TodoRead",
  "TodoWrite",
  "ToolSearch",
  "WebSearch",
];

const BUILTIN_BY_LOWER = new Map(BUILTIN_TOOL_NAMES.map((n) => [n.toLowerCase(), n]));

export function isBuiltinToolName(name: string): boolean {
  return BUILTIN_BY_LOWER.get(name.toLowerCase()) === name;
}

/** The built-in tool that `name` names up to letter case (`read` → `Read`), if any. */
export function builtinByCase(name: string): string | undefined {
  return BUILTIN_BY_LOWER.get(name.toLowerCase());
}

export function isMcpToolName(name: string): boolean {
  return /^mcp__[^_].*/.test(name);
}
