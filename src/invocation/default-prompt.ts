import { offered } from "../permissions/index.js";
import type { PermissionList } from "../permissions/types.js";

/** What the model is told of each built-in tool, when agentmd gives the system prompt. */
const GUIDANCE: Readonly<Record<string, string>> = {
  Read: "Read a file before you change it or talk about it; quote paths and line numbers.",
  Glob: "Find files by name with Glob ('**/*.ts') rather than listing folders one by one.",
  Grep: "Search file contents with Grep (ripgrep's regular expressions) rather than reading files whole.",
  Edit: "Change files with Edit: old_string must match the file exactly, once; keep edits small.",
  MultiEdit: "Several changes to one file go in one MultiEdit.",
  Write: "Write creates a file or replaces one whole; prefer Edit for a change to an existing file.",
  Bash: "Run commands with Bash when no other tool does the job; say what a command is for in its description.",
  WebFetch: "WebFetch reads a page as Markdown; fetch only what the task needs.",
  WebSearch: "WebSearch finds pages; cite the ones you rely on.",
  TodoWrite: "For a task of several steps, keep a list with TodoWrite and mark each step as you go.",
  Task: "Hand a self-contained piece of work to a subagent with Task when one fits it.",
  Skill: "When a skill matches the task, invoke it with Skill before doing the work yourself.",
};

/**
 * The system prompt of a project without agent.md (a `.claude/` project, or none at all): how to
 * work, and how to use the tools this run may be offered — only those. agent.md's body replaces it.
 */
export function defaultSystemPrompt(ceiling: PermissionList): string {
  const tools = offered(ceiling, Object.keys(GUIDANCE));
  return [
    "You are a coding agent working in the user's project through the tools you are given. Do what is asked, no more; read before you change; keep answers short and say what you did.",
    "A call may be denied by the project's rules or by the user: read the reason, and do not try to reach the same end another way.",
    ...(tools.length ? [`Tools:\n${tools.map((t) => `- ${GUIDANCE[t]}`).join("\n")}`] : []),
  ].join("\n\n");
}
