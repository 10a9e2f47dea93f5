/**
 * Claude Code tools that agentmd does not provide. Lists copied from Claude Code projects name
 * them often; they stay in the list (a custom tool may supply one) but offer nothing by default.
 */
export const FOREIGN_TOOL_NAMES: readonly string[] = [
  "AskUserQuestion",
  "EnterPlanMode",
  "ExitPlanMode",
  "KillBash",
  "ListMcpResourcesTool",
  "NotebookRead",
  "ReadMcpResourceTool",
  "SlashCommand",
  "TaskOutput",
  "TodoRead",
];

export function isMcpToolName(name: string): boolean {
  return /^mcp__[^_].*/.test(name);
}

/**
 * The tool names list entries are checked against: the tools a run can have (the tools declare
 * them; the loader is told, never keeps its own table). Looked up exactly and up to letter case.
 */
export interface ToolNames {
  readonly names: readonly string[];
  has(name: string): boolean;
  /** The tool that `name` names up to letter case (`read` → `Read`), if any. */
  byCase(name: string): string | undefined;
}

export function toolNames(names: readonly string[]): ToolNames {
  const byLower = new Map(names.map((n) => [n.toLowerCase(), n]));
  return {
    names,
    has: (name) => byLower.get(name.toLowerCase()) === name,
    byCase: (name) => byLower.get(name.toLowerCase()),
  };
}
