// A leaf: the event names, read by the types and by the checks.

/** The hook events agentmd runs (docs/hooks.md has what each is given and may answer). */
export const HOOK_EVENTS = [
  "PreToolUse",
  "PostToolUse",
  "SessionStart",
  "UserPromptSubmit",
  "Stop",
  "SubagentStart",
  "SubagentStop",
  "PreCompact",
  "SessionEnd",
  "Notification",
  "Elicitation",
  "ElicitationResult",
] as const;

export type HookEventName = (typeof HOOK_EVENTS)[number];
