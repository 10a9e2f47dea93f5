import type { PermissionMode } from "../definitions/settings.js";
import { isInside } from "../shared/is-inside.js";
import { decide } from "./decide.js";
import { pathSubject } from "./path-pattern.js";
import { NO_PARSER } from "./shell/parse-shell.js";
import type { ShellParser } from "./shell/shell-parser.js";
import { subjectValue } from "./subject-specs.js";
import { canonicalToolName, covers } from "./tool-matcher.js";
import type { DecideContext, DenyRule, Origin, PermissionList, ToolCall } from "./types.js";

export type { PermissionMode } from "../definitions/settings.js";

/**
 * Whether a call the allow-lists permit may run without asking: Claude Code's approval tier. The
 * lists are the ceiling, judged first (`decide`); this only ever turns an allowed call into one
 * that asks (or, in plan mode, into a refusal): it never allows what the lists deny.
 */
export interface ApprovalPolicy {
  readonly mode: PermissionMode;
  /**
   * Calls pre-approved (`permissions.allow`, `--allowedTools`). `null`: every call the lists allow
   * is (an agent.md's list is its author's approval).
   */
  readonly preApproved: PermissionList | null;
  /** Calls that ask each time (`permissions.ask`), even when pre-approved: the rules as written. */
  readonly ask: PermissionList | null;
  /** The same rules compiled as a deny list, which is how a call is judged against them. */
  readonly askGuard: PermissionList | null;
  /** The project and `additionalDirectories`: reading (and, with acceptEdits, editing) inside them needs no asking. */
  readonly workingDirs: readonly string[];
}

export type Approval =
  | { readonly kind: "allowed" }
  | { readonly kind: "ask"; readonly reason: string }
  | { readonly kind: "denied"; readonly message: string };

/** Tools that only read or plan: they run without asking in the default mode (Claude Code's set). */
const READ_ONLY_TOOLS = new Set([
  "Read",
  "Glob",
  "Grep",
  "LS",
  "TodoWrite",
  "Task",
  "Skill",
  "ToolSearch",
  "BashOutput",
  "KillShell",
  "NotebookRead",
]);
const EDIT_TOOLS = new Set(["Write", "Edit", "MultiEdit", "NotebookEdit"]);

const ALLOWED: Approval = { kind: "allowed" };

/** The reason of a call a `permissions.ask` rule names: approving it in advance does not help. */
export const ASK_RULE = "a permissions.ask rule asks for it each time";

/**
 * An "always" a user gave to a call that `permissions.ask` rules asked about: those rules (each an
 * entry as written, by its origin) and what the answer allows (the rule the question offered, as
 * `sessionRuleFor` reads it). A later call those rules name asks no more when `allows` allows it.
 */
export interface AskAnswered {
  readonly rules: readonly Origin[];
  readonly allows: PermissionList;
}

/**
 * What a Bash call that only reads would read: the words of its line that could name files (its
 * operands, its options' values, the files it reads by redirection), as written. Undefined: the
 * line does not only read. (The table of read-only commands is the tools' own.)
 */
export type ReadOnlyCommand = (input: unknown) => readonly string[] | undefined;

/**
 * The approval of one call the lists allow. `extra`: what a user allowed for the session;
 * `answered`: the ask rules a user answered "always" to. `readOnlyCommand` tells a Bash call that
 * only reads: plan mode runs those, and the default mode when every path it could read lies in a
 * working folder, as a Read there would. Pure.
 */
export function approve(
  policy: ApprovalPolicy,
  call: ToolCall,
  ctx: DecideContext,
  extra: readonly PermissionList[] = [],
  readOnlyCommand: ReadOnlyCommand = () => undefined,
  answered: readonly AskAnswered[] = [],
): Approval {
  const tool = canonicalToolName(call.tool);
  if (policy.mode === "bypassPermissions") return ALLOWED;
  const reads = tool === "Bash" ? readOnlyCommand(call.input) : undefined;
  if (policy.mode === "plan") {
    if (READ_ONLY_TOOLS.has(tool) || reads !== undefined) return ALLOWED;
    return {
      kind: "denied",
      message: `${tool} is not run in plan mode, which only reads and plans. The tool was not executed.`,
    };
  }
  const hits = (list: PermissionList | null) =>
    list !== null &&
    list.rules !== null &&
    list.rules.length > 0 &&
    decide(list, call, ctx).kind === "allowed";
  if (asks(policy.askGuard, call, ctx) && !answeredAll(policy.askGuard, call, ctx, answered, hits))
    return { kind: "ask", reason: ASK_RULE };
  if (policy.preApproved === null || hits(policy.preApproved) || extra.some(hits)) return ALLOWED;
  const inside = insideWorkingDirs(policy, call, ctx);
  if (READ_ONLY_TOOLS.has(tool) && inside) return ALLOWED;
  if (reads?.every((p) => insidePath(policy, p, ctx))) return ALLOWED;
  if (policy.mode === "acceptEdits" && EDIT_TOOLS.has(tool) && inside) return ALLOWED;
  return {
    kind: "ask",
    reason:
      READ_ONLY_TOOLS.has(tool) || reads !== undefined
        ? "it reads outside the working folders"
        : "it is not pre-approved",
  };
}

/**
 * Whether a `permissions.ask` rule names the call. The rules are judged as a deny list is, so that
 * no part of a compound command, and no evasion a deny rule would catch, slips past them; a
 * searching tool (Grep, Glob, LS) asks whenever a path rule of Read asks, since its answer could
 * show what that rule guards.
 */
function asks(list: PermissionList | null, call: ToolCall, ctx: DecideContext): boolean {
  if (list === null || list.deny.length === 0) return false;
  if (decide(list, call, ctx).kind === "denied") return true;
  const tool = canonicalToolName(call.tool);
  if (tool === "Read" || ctx.specs.get(tool)?.family !== "Read") return false;
  return list.deny.some(
    (d) => d.constraint !== undefined && (covers(d.tool, "Read") || covers(d.tool, tool)),
  );
}

/**
 * The `permissions.ask` rules that name a call, each an entry as written (the deny rules one entry
 * compiles to, a tool and its family, share its origin).
 */
export function askingRules(list: PermissionList | null, call: ToolCall, ctx: DecideContext): Origin[] {
  if (list === null) return [];
  const byEntry = new Map<Origin, DenyRule[]>();
  for (const d of list.deny) byEntry.set(d.origin, [...(byEntry.get(d.origin) ?? []), d]);
  return [...byEntry].filter(([, deny]) => asks({ rules: null, deny }, call, ctx)).map(([origin]) => origin);
}

/**
 * Whether a user answered "always" for every ask rule that names the call, each time to a call
 * like this one (its answer allows it). A call the rules ask for, but no single rule names, asks.
 */
function answeredAll(
  list: PermissionList | null,
  call: ToolCall,
  ctx: DecideContext,
  answered: readonly AskAnswered[],
  allows: (list: PermissionList) => boolean,
): boolean {
  if (answered.length === 0) return false;
  const rules = askingRules(list, call, ctx);
  return (
    rules.length > 0 && rules.every((r) => answered.some((a) => a.rules.includes(r) && allows(a.allows)))
  );
}

/** Whether the path a call names lies in a working folder (a call without a path: yes). */
function insideWorkingDirs(policy: ApprovalPolicy, call: ToolCall, ctx: DecideContext): boolean {
  const spec = ctx.specs.get(canonicalToolName(call.tool));
  if (spec?.kind !== "path") return true;
  const input =
    typeof call.input === "object" && call.input !== null ? (call.input as Record<string, unknown>) : {};
  return insidePath(policy, subjectValue(spec, input, ctx.cwd), ctx);
}

/** Whether a path as a call names it (relative to the working folder) lies in a working folder, really too. */
function insidePath(policy: ApprovalPolicy, value: unknown, ctx: DecideContext): boolean {
  const p = pathSubject(value, ctx.cwd);
  if (p === undefined) return false;
  const real = ctx.realPath ? ctx.realPath(p) : p;
  const within = (x: string) => policy.workingDirs.some((d) => isInside(x, d));
  return within(p) && within(real);
}

/**
 * The rule a user allows for the rest of a session when they answer "always": the command's
 * program (and subcommand) for Bash, the whole tool otherwise. Without `shell`, a line is taken
 * for one command.
 */
export function sessionRuleFor(call: ToolCall, shell: ShellParser = NO_PARSER): string {
  const tool = canonicalToolName(call.tool);
  if (tool !== "Bash") return tool;
  const command =
    typeof call.input === "object" && call.input !== null
      ? String((call.input as { command?: unknown }).command ?? "")
      : "";
  // A compound line needs a rule for each of its commands: one for the first alone would not help.
  const script = shell.parse(command);
  const commands =
    !script.unreadable && script.parts.length > 1
      ? script.parts.map((p) => p.words.slice(p.assignments))
      : [command.trim().split(/\s+/).filter(Boolean)];
  const rules = [...new Set(commands.map(ruleOfWords))];
  return rules.includes("Bash") ? "Bash" : rules.join(", ");
}

/** `Bash(program sub:*)` for a command's words, or `Bash` when they are not plain text. */
function ruleOfWords(words: readonly (string | null)[]): string {
  const head =
    typeof words[1] === "string" && /^[a-z][\w-]*$/.test(words[1]) && SUBCOMMANDS.has(words[0] ?? "")
      ? words.slice(0, 2)
      : words.slice(0, 1);
  return head.length > 0 && head.every((w) => typeof w === "string" && /^[\w./-]+$/.test(w))
    ? `Bash(${head.join(" ")}:*)`
    : "Bash";
}

const SUBCOMMANDS = new Set([
  "git",
  "npm",
  "npx",
  "pnpm",
  "yarn",
  "cargo",
  "go",
  "docker",
  "kubectl",
  "make",
  "pip",
  "uv",
  "poetry",
  "gh",
  "bun",
  "deno",
]);
