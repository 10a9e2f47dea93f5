import {
  baseName,
  denyMatch,
  evadesDeny,
  isInterpreter,
  matchWords,
  unjudgeable,
  unwrap,
} from "./command-pattern.js";
import { judgeWrites, networkReach, writesGuarded } from "./judge-redirection.js";
import { isPackageManager, packageRun } from "./package-scripts.js";
import { NO_PARSER } from "./shell/parse-shell.js";
import { literalText, type ShellPart } from "./shell/shell-script.js";
import { subjectValue } from "./subject-specs.js";
import { type ListIndex, type ToolView, wordsKey } from "./tool-view.js";
import type { DecideContext, Decision, DenyRule, Scope, ToolPermissionSpec } from "./types.js";

const ALLOWED: Decision = { kind: "allowed" };
const WRITES_GUARDED: Scope = { kind: "writes-guarded" };

/**
 * A command line, once its tool is offered. Kept in the list's index when it can be: with the
 * parser given, and no redirection (whose target is judged on the file system).
 */
export function judgeCommandCall(
  index: ListIndex,
  view: ToolView,
  tool: string,
  spec: ToolPermissionSpec,
  input: Readonly<Record<string, unknown>>,
  ctx: DecideContext,
): Decision {
  const line = subjectValue(spec, input, ctx.cwd);
  // A redirection's target and a package's scripts are judged on the file system, as they are now.
  if (typeof line !== "string" || /[<>]|npm|yarn|bun/.test(line) || !ctx.shell || ctx.shell === NO_PARSER)
    return judgeCommand(index, view, tool, spec, line, ctx);
  return index.command(`${tool}\0${ctx.cwd ?? ""}\0${line}`, () =>
    judgeCommand(index, view, tool, spec, line, ctx),
  );
}

/**
 * Every simple command of the line (a pipeline's, a list's, a subshell's, a `$( … )`'s) must be
 * allowed and none denied; what cannot be reduced to plain words is denied whenever a pattern
 * applies; a redirection to a file is judged as a Write of that path.
 */
function judgeCommand(
  index: ListIndex,
  view: ToolView,
  tool: string,
  spec: ToolPermissionSpec,
  line: unknown,
  ctx: DecideContext,
): Decision {
  const onlyWrites = view.unrestricted && view.denies.length === 0;
  if (onlyWrites && !writesGuarded(index)) return ALLOWED;
  const scope: Scope = onlyWrites
    ? WRITES_GUARDED
    : view.unrestricted
      ? { kind: "deny-rule", rule: view.denies[0] as DenyRule }
      : view.scope;
  if (typeof line !== "string" || line.trim() === "")
    return {
      kind: "denied",
      reason: "cannot-judge",
      tool,
      why: { kind: "no-value", field: spec.field },
      scope,
    };
  const script = (ctx.shell ?? NO_PARSER).parse(line);
  const compound = script.parts.length > 1;
  const unreadable = (detail: string, part?: ShellPart): Decision => ({
    kind: "denied",
    reason: "cannot-judge",
    tool,
    subject: line,
    why: { kind: "unreadable", detail },
    scope,
    part: compound ? part?.source : undefined,
  });
  if (script.unreadable) return unreadable(script.unreadable);
  // The tool itself is unrestricted: only what the line visibly writes is judged, against those denies.
  if (onlyWrites) return judgeWrites(index, view, tool, line, script, ctx);
  if (script.unjudgeable) return unreadable(script.unjudgeable);
  for (const p of script.parts) {
    const why = unjudgeable(p, isInterpreter);
    if (why) return unreadable(why, p);
  }
  const network = networkReach(script, view.unrestricted);
  if (network) return unreadable(network);
  const denied =
    view.denies.length > 0
      ? firstDenied(view.denies, script.parts, tool, line, compound, { ...ctx, depth: 0 })
      : undefined;
  if (denied) return denied;
  if (!view.unrestricted) {
    if (view.onlyBad) return { kind: "denied", reason: "bad-pattern", tool, scope: view.scope };
    for (const p of script.parts) {
      if (p.assignments === p.words.length || partAllowed(view, p)) continue;
      return {
        kind: "denied",
        reason: "no-pattern-matched",
        tool,
        subject: line,
        part: compound ? p.source : undefined,
        scope: view.scope,
      };
    }
  }
  return judgeWrites(index, view, tool, line, script, ctx);
}

/** The denial of the first part a deny rule catches, or of which none can be ruled out. */
function firstDenied(
  denies: readonly DenyRule[],
  parts: readonly ShellPart[],
  tool: string,
  line: string,
  compound: boolean,
  at: Where,
): Decision | undefined {
  const moved = parts.some(movesFolder);
  for (const p of parts) {
    const d = denyVerdict(denies, p, { ...at, moved });
    if (!d) continue;
    const part = d.via ? `${p.source} → ${d.via}` : compound ? p.source : undefined;
    if (d.rule) return { kind: "denied", reason: "denied-by-rule", tool, rule: d.rule, subject: line, part };
    // The rule that could match, when one could; else the tool's deny rules as a whole.
    const rules = d.unsure ? [d.unsure] : denies;
    return {
      kind: "denied",
      reason: "cannot-judge",
      tool,
      subject: line,
      part,
      why: { kind: "deny-unsure", rules, detail: d.why ?? "" },
    };
  }
  return undefined;
}

const UNSURE = "a word it would need to rule out is not plain text, or comes after options it cannot read";
/** How deep package scripts that run package scripts are followed. */
const MAX_SCRIPT_DEPTH = 8;

/** Where a command runs: the call's folder or a package's, how deep in scripts, and whether the line may move. */
interface Where extends DecideContext {
  readonly depth: number;
  readonly moved?: boolean;
}

interface DenyVerdict {
  readonly rule?: DenyRule;
  /** The deny rule that could match, when no rule can be ruled out because of one. */
  readonly unsure?: DenyRule;
  readonly why?: string;
  /** The package script line the verdict was reached in. */
  readonly via?: string;
}

/**
 * A deny rule that catches the part (or its command under a wrapper), or why none can be ruled out:
 * `unsure` is the rule that could match, when the doubt is about one (not about a runner of
 * commands, which any rule could be hidden behind).
 */
function denyVerdict(denies: readonly DenyRule[], p: ShellPart, at: Where): DenyVerdict | undefined {
  let words: readonly (string | null)[] | undefined =
    p.assignments === 0 ? p.words : p.words.slice(p.assignments);
  for (let depth = 0; words && depth < 8; depth++) {
    const program = words[0];
    const name = program === undefined ? undefined : program === null ? null : baseName(program);
    let unsure: DenyRule | undefined;
    for (const d of denies) {
      // A deny pattern that cannot be interpreted denies every call of its tool.
      if (d.constraint?.kind !== "command") return { rule: d };
      const m = denyMatch(d.constraint.compiled, words, name);
      if (m === "yes") return { rule: d };
      if (m === "unsure") unsure ??= d;
    }
    if (unsure) return { unsure, why: UNSURE };
    const why = evadesDeny(words, name ?? undefined);
    if (why) return { why };
    if (name && isPackageManager(name)) return scriptsVerdict(denies, words, name, at);
    words = unwrap(words);
  }
  return undefined;
}

/** The package scripts a package manager's command runs, each judged as a command line of its own. */
function scriptsVerdict(
  denies: readonly DenyRule[],
  words: readonly (string | null)[],
  name: string,
  at: Where,
): DenyVerdict | undefined {
  const run = packageRun(words, name, at.cwd, at.readFile);
  if (run === undefined) return undefined;
  if (at.moved)
    return {
      why: `'${name}' runs the scripts of a package.json in a folder the line may change first (with 'cd')`,
    };
  if ("why" in run) return { why: run.why };
  if (run.lines.length > 0 && at.depth >= MAX_SCRIPT_DEPTH)
    return { why: "its package scripts run package scripts too deep to follow" };
  for (const l of run.lines) {
    const d = lineVerdict(denies, l.line, { ...at, cwd: l.cwd, depth: at.depth + 1, moved: false });
    if (d) return { ...d, via: d.via ?? l.line };
  }
  return undefined;
}

/** A package script's line under the deny rules: read, then judged command by command. */
function lineVerdict(denies: readonly DenyRule[], line: string, at: Where): DenyVerdict | undefined {
  const script = (at.shell ?? NO_PARSER).parse(line);
  const why = script.unreadable ?? script.unjudgeable ?? networkReach(script, true);
  if (why) return { why };
  const moved = script.parts.some(movesFolder);
  for (const p of script.parts) {
    const u = unjudgeable(p, isInterpreter);
    if (u) return { why: u };
    const d = denyVerdict(denies, p, { ...at, moved });
    if (d) return d;
  }
  return undefined;
}

const MOVERS = new Set(["cd", "pushd", "popd", "builtin", "source", ".", "eval", "trap", "alias"]);

/** Whether the part may change the shell's working folder (under any readable wrapper). */
function movesFolder(p: ShellPart): boolean {
  let words: readonly (string | null)[] | undefined = p.words.slice(p.assignments);
  for (let depth = 0; words && words.length > 0 && depth < 8; depth++) {
    const program = words[0];
    if (program === null || (program !== undefined && MOVERS.has(program))) return true;
    words = unwrap(words);
  }
  return false;
}

function partAllowed(view: ToolView, p: ShellPart): boolean {
  if (view.anyCommand) return true;
  const words = p.words;
  if (view.exact.size > 0 && literalText(p) !== null && view.exact.has(wordsKey(words as string[])))
    return true;
  const first = words[0];
  const candidates = first ? view.prefixes.get(first) : undefined;
  if (candidates) for (const c of candidates) if (matchWords(c, words)) return true;
  for (const rule of view.others) {
    if (rule.constraints.every((c) => c.kind === "command" && matchWords(c.compiled, words))) return true;
  }
  return false;
}
