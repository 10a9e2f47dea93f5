import path from "node:path";
import {
  type CommandPattern,
  denyForms,
  hasShellMetacharacter,
  hasWordPrefix,
  matchCommand,
  normaliseCommand,
  unjudgeableForDeny,
} from "./command-pattern.js";
import { type NamePattern, type PathPattern, pathSubject } from "./path-pattern.js";
import { subjectValue } from "./subject-specs.js";
import { canonicalToolName, covers } from "./tool-matcher.js";
import type {
  Constraint,
  DecideContext,
  Decision,
  DenyReason,
  DenyRule,
  Origin,
  PermissionList,
  Rule,
  ToolCall,
  ToolPermissionSpec,
} from "./types.js";

const ALLOWED: Decision = { kind: "allowed" };
const NOT_RUN = "The tool was not executed.";

/**
 * The rules of one list that apply to one tool, with the single-pattern rules folded into sets and
 * one regular expression, so that a decision costs a lookup and one match however long the list.
 */
interface ToolView {
  /** No rule covers the tool. */
  readonly notOffered: boolean;
  readonly unrestricted: boolean;
  readonly removedBy: DenyRule | undefined;
  readonly denies: readonly DenyRule[];
  /** Single-constraint rules: commands by exact text and by prefix, paths and names by set or regex. */
  readonly exact: ReadonlySet<string>;
  /** Command prefixes, grouped by their first word. */
  readonly prefixes: ReadonlyMap<string, readonly string[]>;
  readonly anyCommand: boolean;
  readonly re: RegExp | null;
  /** Rules the sets above cannot answer: conjunctions, custom rules, uninterpretable patterns. */
  readonly others: readonly Rule[];
  readonly onlyBad: boolean;
  /** "this run allows Bash only for: git:*, npm test" */
  readonly scope: string;
}

// Lists are immutable, so this memo changes no result; it keeps the per-call work small. It hangs
// off the list under a symbol (a property load is cheaper than a WeakMap lookup per call), or off
// a WeakMap for a list that cannot take it.
const VIEWS: unique symbol = Symbol("agentmd.permissionViews");
const frozenViews = new WeakMap<PermissionList, Map<string, ToolView>>();
type WithViews = PermissionList & { [VIEWS]?: Map<string, ToolView> };

function viewsOf(list: WithViews): Map<string, ToolView> {
  let byTool = list[VIEWS] ?? frozenViews.get(list);
  if (byTool) return byTool;
  byTool = new Map();
  if (Object.isExtensible(list)) Object.defineProperty(list, VIEWS, { value: byTool, enumerable: false });
  else frozenViews.set(list, byTool);
  return byTool;
}

function viewOf(list: PermissionList, tool: string): ToolView {
  const byTool = viewsOf(list);
  let v = byTool.get(tool);
  if (!v) {
    v = buildView(list, tool);
    byTool.set(tool, v);
  }
  return v;
}

function buildView(list: PermissionList, tool: string): ToolView {
  const rules = list.rules === null ? null : list.rules.filter((r) => covers(r.tool, tool));
  const exact = new Set<string>();
  const prefixes = new Map<string, string[]>();
  const sources: string[] = [];
  const others: Rule[] = [];
  let anyCommand = false;
  for (const r of rules ?? []) {
    const [c, ...more] = r.constraints;
    if (!c || more.length > 0 || c.kind === "custom" || c.kind === "bad") {
      if (c) others.push(r);
      continue;
    }
    if (c.kind === "command") {
      const p = c.compiled as CommandPattern;
      if (p.kind === "exact") exact.add(p.text);
      else if (p.text === "") anyCommand = true;
      else {
        const first = firstWord(p.text);
        prefixes.set(first, [...(prefixes.get(first) ?? []), p.text]);
      }
    } else {
      const p = c.compiled as PathPattern | NamePattern;
      if (p.re === null) exact.add(p.text);
      else sources.push(`(?:${p.re.source})`);
    }
  }
  const patterns = (rules ?? []).map((r) => r.constraints.map((c) => c.text).join(" ∧ ")).join(", ");
  return {
    notOffered: rules !== null && rules.length === 0,
    unrestricted: rules === null || rules.some((r) => r.constraints.length === 0),
    removedBy: list.deny.find((d) => !d.constraint && covers(d.tool, tool)),
    denies: list.deny.filter((d) => d.constraint && covers(d.tool, tool)),
    exact,
    prefixes,
    anyCommand,
    re: sources.length ? new RegExp(sources.join("|")) : null,
    others,
    onlyBad: (rules ?? []).every((r) => r.constraints.some((c) => c.kind === "bad")),
    scope: `this run allows ${tool} only for: ${patterns}`,
  };
}

/** One call's subject, computed once per decision. */
interface Subject {
  readonly spec: ToolPermissionSpec | undefined;
  /** The field's value as given, for custom rules. */
  readonly given: unknown;
  /** Normalised command, absolute path or name; undefined when the call cannot be judged. */
  readonly value: string | undefined;
  /** The command as the model wrote it (for the metacharacter check and messages). */
  readonly raw: string | undefined;
  readonly meta: boolean;
}

function subjectOf(
  spec: ToolPermissionSpec | undefined,
  input: Readonly<Record<string, unknown>>,
  cwd: string,
): Subject {
  const v = spec ? subjectValue(spec, input, cwd) : undefined;
  let value: string | undefined;
  let raw: string | undefined;
  let meta = false;
  if (typeof v === "string" && v !== "") {
    if (spec?.kind === "command") {
      raw = v;
      // One scan answers both questions for the common command: no metacharacter, no odd spacing.
      if (UNUSUAL_COMMAND.test(v)) {
        meta = hasShellMetacharacter(v);
        const n = normaliseCommand(v);
        value = n === "" ? undefined : n;
      } else {
        value = v;
      }
    } else if (spec?.kind === "path") {
      value = pathSubject(v, cwd);
      raw = value;
    } else if (spec?.kind === "name") {
      value = v;
      raw = v;
    }
  }
  return { spec, given: v, value, raw, meta };
}

/** A metacharacter, or whitespace that normalising would change (leading, trailing, doubled, not a space). */
const UNUSUAL_COMMAND = /[;|&`$><()\n\r\t\f\v]|\s\s|^\s|\s$/;

type Match = "yes" | "no" | "cannot-judge" | "metacharacter" | "bad-pattern";

function matchOne(c: Constraint, s: Subject): Match {
  if (c.kind === "bad") return "bad-pattern";
  if (c.kind === "custom") {
    const r = s.spec?.custom?.matches(c.compiled as string, s.given);
    return r === undefined ? "cannot-judge" : r ? "yes" : "no";
  }
  if (s.value === undefined || s.spec?.kind !== c.kind) return "cannot-judge";
  if (c.kind === "command") {
    if (s.meta) return "metacharacter";
    return matchCommand(c.compiled as CommandPattern, s.value) ? "yes" : "no";
  }
  return (c.compiled as PathPattern | NamePattern).test(s.value) ? "yes" : "no";
}

/** Whether a deny constraint catches the call; whatever it cannot rule out counts as caught. */
function denyCatches(c: Constraint, s: Subject, forms: readonly string[] | undefined): Match {
  if (c.kind !== "command" || forms === undefined) return matchOne(c, s);
  const p = c.compiled as CommandPattern;
  for (const f of forms) if (matchCommand(p, f)) return "yes";
  return "no";
}

function firstWord(command: string): string {
  const i = command.indexOf(" ");
  return i === -1 ? command : command.slice(0, i);
}

/** The single-constraint rules, answered by set lookups and one regular expression. */
function fastMatch(v: ToolView, s: Subject): boolean {
  const value = s.value;
  if (value === undefined) return false;
  if (s.spec?.kind === "command") {
    if (s.meta) return false;
    if (v.anyCommand || v.exact.has(value)) return true;
    const candidates = v.prefixes.get(firstWord(value));
    if (candidates) {
      for (const p of candidates) {
        if (hasWordPrefix(value, p)) return true;
      }
    }
    return false;
  }
  return (v.exact.size > 0 && v.exact.has(value)) || v.re?.test(value) === true;
}

const denied = (reason: DenyReason, message: string): Decision => ({ kind: "denied", reason, message });

/**
 * A denial whose sentence is written only when read: a rejected call costs no string building
 * until its tool_result is written. `toJSON` keeps it plain data for transcripts and `--json`.
 */
class LazyDenial {
  readonly kind = "denied" as const;
  #message: string | undefined;
  readonly #write: () => string;

  constructor(
    readonly reason: DenyReason,
    write: () => string,
  ) {
    this.#write = write;
  }

  get message(): string {
    this.#message ??= this.#write();
    return this.#message;
  }

  toJSON() {
    return { kind: this.kind, reason: this.reason, message: this.message };
  }
}

const deniedLazily = (reason: DenyReason, write: () => string): Decision => new LazyDenial(reason, write);
const where = (o: Origin) => `${path.basename(o.file)}:${o.line}`;

function isRecord(x: unknown): x is Readonly<Record<string, unknown>> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

/**
 * Judges one call against an effective list. Pure: no I/O, no logging, same answer every time.
 * Deny rules first (deny beats allow), then the allow rules of the tool: one of them must admit
 * the call. The sentence of a denial is written for the model and the user alike.
 */
export function decide(list: PermissionList, call: ToolCall, ctx: DecideContext): Decision {
  const tool = canonicalToolName(call.tool);
  const view = viewOf(list, tool);
  if (view.removedBy) {
    const o = view.removedBy.origin;
    return denied(
      "denied-by-rule",
      `${tool} is not allowed: '${o.raw}' in ${where(o)} removes it. ${NOT_RUN}`,
    );
  }
  if (view.notOffered) return denied("not-offered", `${tool} is not allowed in this run. ${NOT_RUN}`);
  if (view.unrestricted && view.denies.length === 0) return ALLOWED;
  const subject = subjectOf(ctx.specs.get(tool), isRecord(call.input) ? call.input : {}, ctx.cwd);
  let forms: string[] | undefined;
  for (const d of view.denies) {
    const c = d.constraint as Constraint;
    if (c.kind === "command" && subject.value !== undefined && !subject.meta && forms === undefined) {
      const why = unjudgeableForDeny(subject.value);
      if (why) {
        const rule = `'${d.origin.raw}' in ${where(d.origin)}`;
        return denied(
          "cannot-judge",
          `${describeCall(tool, subject)} cannot be judged against the deny rule ${rule}: ${why}. ${NOT_RUN}`,
        );
      }
      forms = denyForms(subject.value);
    }
    const m = denyCatches(c, subject, forms);
    if (m === "no") continue;
    const rule = `'${d.origin.raw}' in ${where(d.origin)}`;
    if (m === "yes")
      return denied("denied-by-rule", `${describeCall(tool, subject)} is denied by ${rule}. ${NOT_RUN}`);
    return denialFor(m, tool, subject, `the deny rule ${rule} applies`);
  }
  if (view.unrestricted || fastMatch(view, subject)) return ALLOWED;
  for (const rule of view.others) {
    if (rule.constraints.every((c) => matchOne(c, subject) === "yes")) return ALLOWED;
  }
  const custom = view.others.some((r) => r.constraints.some((c) => c.kind === "custom"));
  let reason: Match = "no";
  if (view.onlyBad) reason = "bad-pattern";
  else if (subject.value === undefined && !custom) reason = "cannot-judge";
  else if (subject.meta) reason = "metacharacter";
  else if (custom) {
    for (const r of view.others)
      for (const c of r.constraints) if (matchOne(c, subject) === "cannot-judge") reason = "cannot-judge";
  }
  return denialFor(reason, tool, subject, view.scope);
}

function denialFor(m: Match, tool: string, s: Subject, scope: string): Decision {
  const field = s.spec?.field;
  switch (m) {
    case "cannot-judge":
      return denied(
        "cannot-judge",
        `${tool} call cannot be judged: ${s.spec?.kind === "custom" ? `its '${field}' is missing or not valid` : field ? `its '${field}' is missing, empty or not text` : "it has no value a pattern can be matched against"}, and ${scope}. ${NOT_RUN}`,
      );
    case "metacharacter":
      return denied(
        "metacharacter",
        `${describeCall(tool, s)} holds a shell metacharacter (; | & \` $ > < ( ) or a newline), so it could run more than a pattern names; ${scope}. ${NOT_RUN}`,
      );
    case "bad-pattern":
      return denied(
        "bad-pattern",
        `${tool} is allowed only by patterns that cannot be interpreted (${scope}). ${NOT_RUN}`,
      );
    default:
      return deniedLazily(
        "no-pattern-matched",
        () => `${describeCall(tool, s)} is not allowed: ${scope}. ${NOT_RUN}`,
      );
  }
}

function describeCall(tool: string, s: Subject): string {
  const value = s.raw ?? s.value;
  if (value === undefined) return `${tool} call`;
  const v = value.length > 120 ? `${value.slice(0, 117)}...` : value;
  return `${tool}(${JSON.stringify(v).slice(1, -1)})`;
}
