import { realpathSync } from "node:fs";
import path from "node:path";
import { DiagnosticSink } from "../definitions/diagnostics.js";
import { checkEntry, splitToolList } from "../definitions/parse-tool-list.js";
import type { ClaudeSettings } from "../definitions/settings.js";
import type { ToolNames } from "../definitions/tool-names.js";
import type { ToolEntry } from "../definitions/types.js";
import type { ApprovalAnswer, ApprovalRequest, CallApproval } from "../loop/execute-call.js";
import {
  type ApprovalPolicy,
  ASK_RULE,
  type AskAnswered,
  approve,
  askingRules,
  type PermissionMode,
  sessionRuleFor,
} from "../permissions/approval.js";
import { decide } from "../permissions/decide.js";
import { narrowerMode } from "../permissions/mode-order.js";
import { compileList, intersect } from "../permissions/permission-list.js";
import { NO_PARSER } from "../permissions/shell/parse-shell.js";
import type { ShellParser } from "../permissions/shell/shell-parser.js";
import { canonicalToolName, covers } from "../permissions/tool-matcher.js";
import type { CompileContext, DecideContext, PermissionList, ToolCall } from "../permissions/types.js";
import { ConfigError } from "../shared/errors.js";
import { readOnlyOperands } from "../tools/builtin/read-only-commands.js";

/** Asks a user about one call (the REPL's prompt, or a program's own). */
export type Approver = (request: ApprovalRequest) => Promise<ApprovalAnswer>;

/** How calls are approved: Claude Code's permission mode and rules, given in code or on the command line. */
export interface PermissionOptions {
  /** Over `permissions.defaultMode` of the settings; default `default`. */
  readonly mode?: PermissionMode;
  /** Rules that pre-approve calls (`--allowedTools`): within the lists, never beyond them. */
  readonly allow?: readonly string[];
  /** Rules denied at every hop (`--disallowedTools`), beside the settings' `permissions.deny`. */
  readonly deny?: readonly string[];
  /** Who answers when a call needs approval; without it such calls are denied, saying how to allow them. */
  readonly approve?: Approver;
}

/**
 * Rules given as text (`"Bash(git:*) Edit"`, as the command line writes them) as list entries.
 * A rule that cannot be read throws a ConfigError; other problems (an unknown tool) come back as
 * warnings.
 */
export function ruleEntries(
  texts: readonly string[],
  origin: string,
  known?: ToolNames,
): { entries: ToolEntry[]; warnings: string[] } {
  const sink = new DiagnosticSink(origin, undefined);
  const entries: ToolEntry[] = [];
  for (const text of texts)
    for (const { raw } of splitToolList(text)) {
      const entry = checkEntry(raw, { line: 1, column: 1 }, sink, known);
      if (entry) entries.push(entry);
    }
  const said = (severity: string) =>
    sink.items.filter((d) => d.severity === severity).map((d) => `${origin}: ${d.message}`);
  const errors = said("error");
  if (errors.length > 0) throw new ConfigError(errors.join("\n"));
  return { entries, warnings: said("warning") };
}

/**
 * Whether agent.md approves the calls of the session: only an allow-list is its author's approval.
 * An agent.md without one (no `allowed-tools`, no `tools`) approves nothing, and the session is
 * approved as one without agent.md.
 */
export function listApproves(main: { readonly allowedTools?: unknown } | undefined): boolean {
  return main?.allowedTools !== undefined;
}

/**
 * The approval tier of a session. With agent.md's allow-list, that list is its author's approval:
 * every call the lists allow runs (the mode and `permissions.ask` still apply). Without one (no
 * agent.md, or one without a list), Claude Code's default: reading tools and read-only commands
 * run inside the working folders, and anything else runs when `permissions.allow` or
 * `--allowedTools` names it, or a user approves it.
 */
export function approvalPolicy(input: {
  readonly settings: ClaudeSettings;
  readonly mode?: PermissionMode;
  readonly allow: readonly ToolEntry[];
  readonly mainApproves: boolean;
  readonly workingDirs: readonly string[];
  readonly ctx: CompileContext;
}): ApprovalPolicy {
  const { settings, ctx } = input;
  const rules = (entries: readonly ToolEntry[]) => compileList(withFamilies(entries, ctx), undefined, ctx);
  return {
    mode: input.mode ?? settings.defaultMode ?? "default",
    preApproved: input.mainApproves ? null : rules([...settings.allow, ...input.allow]),
    ask: settings.ask.length > 0 ? rules(settings.ask) : null,
    // The same rules judged as a deny list: a call asks when any part of it matches (see `approve`).
    askGuard: settings.ask.length > 0 ? compileList(undefined, settings.ask, ctx) : null,
    workingDirs: [...new Set(input.workingDirs.flatMap(bothPaths))],
  };
}

/**
 * Approval rules as Claude Code reads them: a path rule of Read covers every reading tool (Grep,
 * Glob, LS), one of Edit every editing tool (Write, MultiEdit, NotebookEdit).
 */
function withFamilies(entries: readonly ToolEntry[], ctx: CompileContext): ToolEntry[] {
  const members = (head: string) =>
    [...ctx.specs].filter(([, spec]) => spec.family === head).map(([name]) => name);
  return entries.flatMap((e) =>
    e.pattern === undefined ? [e] : [e, ...members(e.name).map((name) => ({ ...e, name }))],
  );
}

/** A folder as written and as it really is (a symlinked checkout is inside both ways). */
function bothPaths(dir: string): string[] {
  const abs = path.resolve(dir);
  try {
    return [abs, realpathSync(abs)];
  } catch {
    return [abs];
  }
}

/**
 * The executor's view of the tier: judge a call, ask the approver (never rejecting), remember what
 * a user allowed for the session, and say how to allow a call no one could approve.
 */
export function createApprovals(
  initial: ApprovalPolicy,
  ctx: CompileContext,
  approver: Approver | undefined,
): CallApproval {
  let policy = initial;
  const session: PermissionList[] = [];
  // The permissions.ask rules a user answered "always" to, each with what that answer allows.
  const answered: AskAnswered[] = [];
  // The parser the executor judged with: a call is checked before it is asked about or allowed
  // for the session, and its rule for the session is read with the same parser.
  let shell: ShellParser = NO_PARSER;
  // One tier, seen in the session's mode or bounded by a run's: what a user allows is shared.
  const view = (bound: PermissionMode | undefined, dirs: readonly string[]): CallApproval => {
    const now = () => {
      const mode = narrowerMode(policy.mode, bound) ?? policy.mode;
      const workingDirs = [...policy.workingDirs, ...dirs];
      return mode === policy.mode && dirs.length === 0 ? policy : { ...policy, mode, workingDirs };
    };
    return {
      check: (call, judged, approved = [], list) => {
        shell = judged.shell ?? shell;
        return approve(
          now(),
          call,
          judged,
          [...session, ...approved],
          readsOf(shell, judged, list),
          answered,
        );
      },
      ask: (request) =>
        approver
          ? approver(request).catch(
              (e: unknown): ApprovalAnswer => ({
                kind: "deny",
                reason: `the approval prompt failed (${e instanceof Error ? e.message : String(e)})`,
              }),
            )
          : Promise.resolve(undefined),
      setMode: (mode) => {
        policy = { ...policy, mode };
      },
      within: (b) =>
        view(narrowerMode(bound, b.mode), b.workingDir ? [...dirs, ...bothPaths(b.workingDir)] : dirs),
      allowForSession(call, judged) {
        const { entries } = ruleEntries([sessionRuleFor(call, judged.shell ?? shell)], "the session");
        const allows = compileList(entries, undefined, ctx);
        session.push(allows);
        // An "always" to a call a permissions.ask rule asked about holds for that rule's calls like it.
        const rules = askingRules(policy.askGuard, call, judged);
        if (rules.length > 0) answered.push({ rules, allows });
      },
      howToAllow: (call, reason) => howToAllow(call, reason, shell),
      unasked: (list) => unaskedOf(now(), list),
    };
  };
  return view(undefined, []);
}

/**
 * What a read-only command would read, as `approve` asks: its operands, when Read could read each
 * of them under the run's `list` (a read-only command that names a file Read may not read is not
 * one that reads only). A list that offers no Read at all judges them by its deny rules alone.
 */
export function readsOf(shell: ShellParser, judged: DecideContext, list: PermissionList | undefined) {
  return (input: unknown): readonly string[] | undefined => {
    const command =
      typeof input === "object" && input !== null ? (input as { command?: unknown }).command : undefined;
    const operands = readOnlyOperands(command, shell);
    if (operands === undefined || list === undefined) return operands;
    const reading =
      list.rules?.some((r) => covers(r.tool, "Read")) === false ? { rules: null, deny: list.deny } : list;
    const readable = (p: string) =>
      decide(reading, { tool: "Read", input: { file_path: p } }, judged).kind === "allowed";
    return operands.every(readable) ? operands : undefined;
  };
}

/** The part of `list` that runs without asking under `policy` (for tools run on the API's side). */
function unaskedOf(policy: ApprovalPolicy, list: PermissionList): PermissionList | undefined {
  // Plan mode runs only reading tools: a tool the API runs is never one it could refuse.
  if (policy.mode === "plan") return undefined;
  if (policy.mode === "bypassPermissions" || policy.preApproved === null) return list;
  const pre = policy.preApproved;
  if (pre.rules === null || pre.rules.length === 0) return undefined;
  // What a permissions.ask rule names is never offered unasked.
  return policy.askGuard ? intersect(intersect(list, pre), policy.askGuard) : intersect(list, pre);
}

/** The refusal of a call that needed approval in a run no one can answer. */
function howToAllow(call: ToolCall, reason: string, shell: ShellParser): string {
  if (reason === ASK_RULE || reason.startsWith("a PreToolUse hook asks"))
    return `${canonicalToolName(call.tool)} needs approval each time (${reason}), and this run cannot ask: run it where a user can answer (agentmd chat). The tool was not executed.`;
  const rule = sessionRuleFor(call, shell);
  return `${canonicalToolName(call.tool)} needs approval (${reason}), and this run cannot ask: allow it with --allowedTools '${rule}', or add "${rule}" to permissions.allow in .claude/settings.json. The tool was not executed.`;
}

/**
 * What bounds and approves every call of a session, beside the main agent's list: the deny rules
 * of the settings and the command line (inherited by every hop), and the approval tier.
 */
export function sessionPermissions(input: {
  readonly given: Omit<PermissionOptions, "approve">;
  readonly claude: ClaudeSettings;
  readonly mainApproves: boolean;
  readonly known: ToolNames;
  readonly ctx: CompileContext;
  readonly workingDirs: readonly string[];
}): { denied: PermissionList; policy: ApprovalPolicy; notices: string[] } {
  const { given, claude, ctx } = input;
  const allow = ruleEntries(given.allow ?? [], "--allowedTools", input.known);
  const deny = ruleEntries(given.deny ?? [], "--disallowedTools", input.known);
  const policy = approvalPolicy({
    settings: claude,
    ...(given.mode && { mode: given.mode }),
    allow: allow.entries,
    mainApproves: input.mainApproves,
    workingDirs: [...input.workingDirs, ...claude.additionalDirectories],
    ctx,
  });
  const notices = [...allow.warnings, ...deny.warnings];
  if (policy.mode === "bypassPermissions" && claude.bypassDisabled)
    throw new ConfigError(
      "bypassPermissions mode is turned off by the settings (permissions.disableBypassPermissionsMode); choose another --permission-mode",
    );
  if (input.mainApproves && allow.entries.length > 0)
    notices.push(
      "--allowedTools has no effect here: agent.md's list already approves every call it allows, and nothing widens it",
    );
  if (policy.mode === "bypassPermissions")
    notices.push(
      "permissions run in bypassPermissions mode: every call the allow-lists allow runs without asking",
    );
  return {
    denied: compileList(undefined, [...claude.deny, ...deny.entries], ctx),
    policy,
    notices,
  };
}

/**
 * The runner's own state is no tool's to read: the sessions in `.agentmd/` hold every file any run
 * read, so a subagent denied a file could otherwise find it in its caller's transcript; the
 * user's `~/.agentmd/` holds the tokens of the MCP servers they signed in to. (Grep, Glob and LS
 * are bound by Read's rules.)
 */
export const RUNNER_DENY: readonly ToolEntry[] = [
  {
    name: "Read",
    pattern: ".agentmd/**",
    raw: "Read(.agentmd/**)",
    at: { file: "the runner's own rules (its sessions)", line: 1, column: 1 },
  },
  {
    name: "Read",
    pattern: "~/.agentmd/**",
    raw: "Read(~/.agentmd/**)",
    at: { file: "the runner's own rules (the user's sign-ins and trust)", line: 1, column: 1 },
  },
];
