import { didYouMean } from "../shared/did-you-mean.js";
import type { DiagnosticSink } from "./diagnostics.js";
import type { Field } from "./yaml-fields.js";

/** The hook events agentmd runs. */
export const HOOK_EVENTS = ["PreToolUse", "PostToolUse"] as const;

/** Claude Code's other hook events: real names agentmd does not run (a warning, not an error). */
export const FOREIGN_HOOK_EVENTS: readonly string[] = [
  "PermissionRequest",
  "Notification",
  "UserPromptSubmit",
  "Stop",
  "SubagentStart",
  "SubagentStop",
  "PreCompact",
  "SessionStart",
  "SessionEnd",
  "PostToolUseFailure",
];

/**
 * The event names under `hooks:`. A misspelled or unknown event is an error, as a misspelled list
 * key is: a hook its author believes guards every Bash call would silently never run. Returns
 * whether the hooks are usable.
 */
export function checkHookEvents(field: Pick<Field, "value" | "locate">, sink: DiagnosticSink): boolean {
  const value = field.value;
  if (value === null || typeof value !== "object" || Array.isArray(value)) return true;
  let ok = true;
  for (const event of Object.keys(value)) {
    if ((HOOK_EVENTS as readonly string[]).includes(event)) continue;
    const pos = field.locate([event]);
    if (FOREIGN_HOOK_EVENTS.includes(event)) {
      sink.add(
        "warning",
        "hook-event-not-run",
        `'${event}' hooks are not run by agentmd (only ${HOOK_EVENTS.join(" and ")}); they are ignored`,
        pos.line,
        pos.column,
      );
      continue;
    }
    ok = false;
    const known = [...HOOK_EVENTS, ...FOREIGN_HOOK_EVENTS];
    const squash = (s: string) => s.toLowerCase().replace(/[-_\s]/g, "");
    const near = known.find((k) => squash(k) === squash(event)) ?? didYouMean(event, known);
    sink.add(
      "error",
      "unknown-hook-event",
      `unknown hook event '${event}'${near ? `; did you mean '${near}'?` : ` (agentmd runs ${HOOK_EVENTS.join(" and ")}).`} A hook that never runs would guard nothing, so this file is not loaded`,
      pos.line,
      pos.column,
    );
  }
  return ok;
}
