import { didYouMean } from "../shared/did-you-mean.js";
import type { DiagnosticSink } from "./diagnostics.js";
import { HOOK_EVENTS } from "./hook-events.js";
import type { Field } from "./yaml-fields.js";

export { HOOK_EVENTS, type HookEventName } from "./hook-events.js";

/** Claude Code's other hook events: real names agentmd does not run (a warning, not an error). */
export const FOREIGN_HOOK_EVENTS: readonly string[] = ["PermissionRequest", "PostToolUseFailure"];

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
        `'${event}' hooks are not run by agentmd (it runs ${HOOK_EVENTS.join(", ")}); they are ignored`,
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
      `unknown hook event '${event}'${near ? `; did you mean '${near}'?` : ` (agentmd runs ${HOOK_EVENTS.join(", ")}).`} A hook that never runs would guard nothing, so this file is not loaded`,
      pos.line,
      pos.column,
    );
  }
  return ok;
}

/** Where the parts of a `hooks` value are: a value's position, and a key's (its value's when unknown). */
export interface HookPlaces {
  locate(keys: readonly (string | number)[]): { line: number; column: number };
  locateKey(keys: readonly (string | number)[]): { line: number; column: number };
}

/** Claude Code's hook types other than `command`: real, and not run by agentmd (a warning). */
export const FOREIGN_HOOK_TYPES: readonly string[] = ["prompt", "agent", "http", "mcp_tool"];
const ENTRY_KEYS = ["matcher", "hooks"];
const HOOK_KEYS = ["type", "command", "timeout"];
/** Claude Code's keys of a command hook that agentmd accepts and does not act on. */
export const FOREIGN_HOOK_KEYS: readonly string[] = [
  "statusMessage",
  "once",
  "async",
  "asyncRewake",
  "if",
  "shell",
];
const SHAPE =
  'each event takes a list of { "matcher": "…", "hooks": [{ "type": "command", "command": "…" }] }';
const NOT_RUN = "a hook that is not read would guard nothing, so this file is not used";

const isRecord = (x: unknown): x is Record<string, unknown> =>
  typeof x === "object" && x !== null && !Array.isArray(x);

/**
 * A whole `hooks` value, of agent.md, a skill or a settings file: its event names
 * (`checkHookEvents`), then each event's list, entry by entry. A hook that
 * would silently never run is an error: an event that is not a list, an entry or a hook that is not
 * a map, a misspelled key (`comand`, `matchr`, `hook`), a command hook without its `command`, an
 * unknown hook type. Claude Code's other hook types (`prompt`, …) are a warning, and not run.
 * Returns whether the hooks are usable.
 */
export function checkHooks(value: unknown, at: HookPlaces, sink: DiagnosticSink): boolean {
  if (value === undefined || value === null) return true;
  const error = (keys: readonly (string | number)[], message: string) => {
    const pos = at.locate(keys);
    sink.add("error", "hook-shape", message, pos.line, pos.column);
    return false;
  };
  if (!isRecord(value)) return error([], `'hooks' must be a map of events; ${SHAPE}`);
  let ok = checkHookEvents({ value, locate: at.locateKey }, sink);
  const name = (keys: readonly (string | number)[]) =>
    `hooks.${keys.map((k) => (typeof k === "number" ? `${k}` : k)).join(".")}`;

  /** Unknown keys of a map; returns false when one was a near miss (an error). */
  const checkKeys = (map: Record<string, unknown>, keys: (string | number)[], known: readonly string[]) => {
    let fine = true;
    for (const k of Object.keys(map)) {
      if (known.includes(k) || FOREIGN_HOOK_KEYS.includes(k)) continue;
      const pos = at.locateKey([...keys, k]);
      if (k === "args") {
        sink.add(
          "error",
          "hook-key",
          `'${name([...keys, k])}': agentmd does not read 'args' (Claude Code's exec form); write the whole command line in 'command'. A hook run without its arguments would not be the hook written, so this file is not used`,
          pos.line,
          pos.column,
        );
        fine = false;
        continue;
      }
      const near = didYouMean(k, [...known, ...FOREIGN_HOOK_KEYS]);
      if (near) {
        sink.add(
          "error",
          "hook-key",
          `unknown key '${name([...keys, k])}'; did you mean '${near}'? ${capital(NOT_RUN)}`,
          pos.line,
          pos.column,
        );
        fine = false;
      } else {
        sink.add(
          "warning",
          "hook-key",
          `unknown key '${name([...keys, k])}' is ignored`,
          pos.line,
          pos.column,
        );
      }
    }
    return fine;
  };

  /** One hook: `{ type: "command", command, timeout }` (or an entry in the flat form). */
  const checkHook = (h: unknown, keys: (string | number)[], known: readonly string[]): boolean => {
    if (!isRecord(h)) return error(keys, `'${name(keys)}' must be a map: ${SHAPE}`);
    const type = h.type;
    if (type !== undefined && type !== "command") {
      if (typeof type === "string" && FOREIGN_HOOK_TYPES.includes(type)) {
        const pos = at.locate(keys);
        sink.add(
          "warning",
          "hook-type-not-run",
          `a '${type}' hook is not run by agentmd (it runs command hooks only); it is ignored`,
          pos.line,
          pos.column,
        );
        return true;
      }
      const near =
        typeof type === "string" ? didYouMean(type, ["command", ...FOREIGN_HOOK_TYPES]) : undefined;
      return error(
        [...keys, "type"],
        `unknown hook type ${JSON.stringify(type)} at '${name(keys)}'${near ? `; did you mean '${near}'?` : ` (agentmd runs "command" hooks)`}. ${capital(NOT_RUN)}`,
      );
    }
    let fine = checkKeys(h, keys, known);
    // A misspelled `command` was said already; its absence is the same mistake.
    const saidAlready = !fine && h.command === undefined;
    if (!saidAlready && (typeof h.command !== "string" || h.command.trim() === "")) {
      fine = error(
        h.command === undefined ? keys : [...keys, "command"],
        `a command hook needs 'command', the shell command to run, as text ('${name(keys)}'). ${capital(NOT_RUN)}`,
      );
    }
    const timeout = h.timeout;
    if (timeout !== undefined && !(typeof timeout === "number" && timeout > 0))
      fine = error(
        [...keys, "timeout"],
        `'${name([...keys, "timeout"])}' must be a number of seconds above 0`,
      );
    return fine;
  };

  for (const event of HOOK_EVENTS) {
    const list = value[event];
    if (list === undefined || list === null) continue;
    if (!Array.isArray(list)) {
      ok = error([event], `'hooks.${event}' must be a list; ${SHAPE}. ${capital(NOT_RUN)}`);
      continue;
    }
    list.forEach((entry: unknown, i) => {
      const keys = [event, i];
      if (!isRecord(entry)) {
        ok = error(keys, `'${name(keys)}' must be a map: ${SHAPE}`);
        return;
      }
      if (entry.matcher !== undefined && typeof entry.matcher !== "string")
        ok = error(
          [...keys, "matcher"],
          `'${name([...keys, "matcher"])}' must be text (a tool name or a pattern)`,
        );
      if (entry.hooks !== undefined) {
        const keysOk = checkKeys(entry, keys, ENTRY_KEYS);
        if (!keysOk) ok = false;
        if (!Array.isArray(entry.hooks)) {
          ok = error([...keys, "hooks"], `'${name([...keys, "hooks"])}' must be a list; ${SHAPE}`);
          return;
        }
        entry.hooks.forEach((h: unknown, j) => {
          if (!checkHook(h, [...keys, "hooks", j], HOOK_KEYS)) ok = false;
        });
        return;
      }
      if (entry.command !== undefined || entry.type !== undefined) {
        // The flat form, `{ matcher, command, timeout }`: the entry is the hook.
        if (!checkHook(entry, keys, [...ENTRY_KEYS, ...HOOK_KEYS])) ok = false;
        return;
      }
      const nearMiss = !checkKeys(entry, keys, [...ENTRY_KEYS, ...HOOK_KEYS]);
      ok = false;
      if (!nearMiss)
        error(keys, `'${name(keys)}' has no 'hooks' list and no 'command': ${SHAPE}. ${capital(NOT_RUN)}`);
    });
  }
  return ok;
}

function capital(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
