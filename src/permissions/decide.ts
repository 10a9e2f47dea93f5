import path from "node:path";
import {
  baseName,
  type CommandPattern,
  denyMatch,
  evadesDeny,
  isInterpreter,
  matchWords,
  unjudgeable,
  unwrap,
} from "./command-pattern.js";
import { type NamePattern, type PathPattern, pathSubject } from "./path-pattern.js";
import { parseShell, shellParserLoaded } from "./shell/parse-shell.js";
import { literalText, type ShellPart, type ShellScript } from "./shell/shell-script.js";
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
  /** Single-constraint rules: exact commands (words joined by NUL), exact paths and names. */
  readonly exact: ReadonlySet<string>;
  /** Command prefixes, grouped by their first word. */
  readonly prefixes: ReadonlyMap<string, readonly CommandPattern[]>;
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

const wordsKey = (words: readonly string[]) => words.join("\0");

function buildView(list: PermissionList, tool: string): ToolView {
  const rules = list.rules === null ? null : list.rules.filter((r) => covers(r.tool, tool));
  const exact = new Set<string>();
  const prefixes = new Map<string, CommandPattern[]>();
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
      if (p.kind === "exact") exact.add(wordsKey(p.words));
      else if (p.words.length === 0) anyCommand = true;
      else prefixes.set(p.words[0] as string, [...(prefixes.get(p.words[0] as string) ?? []), p]);
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

/** One call's subject: the value its patterns are matched against. */
interface Subject {
  readonly spec: ToolPermissionSpec | undefined;
  /** The field's value as given, for custom rules. */
  readonly given: unknown;
  /** Absolute path or name; undefined when the call cannot be judged. */
  readonly value: string | undefined;
}

function subjectOf(
  spec: ToolPermissionSpec | undefined,
  input: Readonly<Record<string, unknown>>,
  cwd: string,
): Subject {
  const given = spec ? subjectValue(spec, input, cwd) : undefined;
  let value: string | undefined;
  if (typeof given === "string" && given !== "") {
    if (spec?.kind === "path") value = pathSubject(given, cwd);
    else if (spec?.kind === "name") value = given;
  }
  return { spec, given, value };
}

type Match = "yes" | "no" | "cannot-judge" | "bad-pattern";

function matchOne(c: Constraint, s: Subject): Match {
  if (c.kind === "bad") return "bad-pattern";
  if (c.kind === "custom") {
    const r = s.spec?.custom?.matches(c.compiled as string, s.given);
    return r === undefined ? "cannot-judge" : r ? "yes" : "no";
  }
  if (s.value === undefined || s.spec?.kind !== c.kind || c.kind === "command") return "cannot-judge";
  return (c.compiled as PathPattern | NamePattern).test(s.value) ? "yes" : "no";
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
const ruleName = (d: DenyRule) => `'${d.origin.raw}' in ${where(d.origin)}`;

function isRecord(x: unknown): x is Readonly<Record<string, unknown>> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

/**
 * Judges one call against an effective list. Pure (a `realPath` lookup is the caller's): no other
 * I/O, no logging, same answer every time. Deny rules first (deny beats allow), then the allow rules
 * of the tool: one of them must admit the call. A command line is judged command by command; a path
 * on its lexical and (given `realPath`) its real path; a Grep or Glob path by Read's rules too, and a
 * Write path by Edit's. The sentence of a denial is written for the model and the user alike.
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
  const spec = ctx.specs.get(tool);
  const input = isRecord(call.input) ? call.input : {};
  if (spec?.kind === "command") return decideCommandOnce(list, view, tool, spec, input, ctx);
  // A family's allow patterns were bound into this tool's rules when the list was compiled; its
  // deny rules (unioned at every hop) are judged here.
  const family = spec?.family ? viewOf(list, spec.family) : undefined;
  const familyDenies = family !== undefined && (family.denies.length > 0 || family.removedBy !== undefined);
  if (view.unrestricted && view.denies.length === 0 && !familyDenies) return ALLOWED;
  const subject = subjectOf(spec, input, ctx.cwd);
  const familyName = familyDenies ? spec?.family : undefined;
  const lexical = judgeSubject(view, tool, subject, familyName, list);
  if (lexical.kind === "denied" || spec?.kind !== "path" || subject.value === undefined || !ctx.realPath)
    return lexical;
  const real = ctx.realPath(subject.value);
  if (real === subject.value) return lexical;
  const viaLink = judgeSubject(view, tool, { ...subject, value: real }, familyName, list);
  if (viaLink.kind === "allowed") return ALLOWED;
  return denied(
    viaLink.reason,
    `${tool}(${shown(subject.value)}) leads through a symlink to ${shown(real)}: ${viaLink.message}`,
  );
}

/** One subject against the tool's rules, then against its family's deny rules (Read's for Grep, Edit's for Write). */
function judgeSubject(
  view: ToolView,
  tool: string,
  s: Subject,
  family: string | undefined,
  list: PermissionList,
): Decision {
  const own = judgeOwn(view, tool, s);
  if (own.kind === "denied" || family === undefined || s.value === undefined) return own;
  const head = viewOf(list, family);
  const byHead = head.removedBy
    ? denied("denied-by-rule", `${family} is not allowed: ${ruleName(head.removedBy)} removes it. ${NOT_RUN}`)
    : judgeDenies(head, family, s);
  if (byHead.kind === "allowed") return ALLOWED;
  return denied(
    byHead.reason,
    `${tool}(${shown(s.value)}) is judged by ${family}'s rules too (they cover ${tool}), and ${byHead.message}`,
  );
}

/** The deny rules of one tool against a subject. */
function judgeDenies(view: ToolView, tool: string, s: Subject): Decision {
  for (const d of view.denies) {
    const m = matchOne(d.constraint as Constraint, s);
    if (m === "no") continue;
    if (m === "yes")
      return denied("denied-by-rule", `${describe(tool, s.value)} is denied by ${ruleName(d)}. ${NOT_RUN}`);
    return denialFor(m, tool, s, `the deny rule ${ruleName(d)} applies`);
  }
  return ALLOWED;
}

function judgeOwn(view: ToolView, tool: string, s: Subject): Decision {
  const deny = judgeDenies(view, tool, s);
  if (deny.kind === "denied") return deny;
  if (view.unrestricted) return ALLOWED;
  const value = s.value;
  if (
    value !== undefined &&
    ((view.exact.size > 0 && view.exact.has(value)) || view.re?.test(value) === true)
  )
    return ALLOWED;
  for (const rule of view.others) if (rule.constraints.every((c) => matchOne(c, s) === "yes")) return ALLOWED;
  const custom = view.others.some((r) => r.constraints.some((c) => c.kind === "custom"));
  let reason: Match = "no";
  if (view.onlyBad) reason = "bad-pattern";
  else if (value === undefined && !custom) reason = "cannot-judge";
  else if (custom) {
    for (const r of view.others)
      for (const c of r.constraints) if (matchOne(c, s) === "cannot-judge") reason = "cannot-judge";
  }
  return denialFor(reason, tool, s, view.scope);
}

function denialFor(m: Match, tool: string, s: Subject, scope: string): Decision {
  const field = s.spec?.field;
  switch (m) {
    case "cannot-judge":
      return denied(
        "cannot-judge",
        `${tool} call cannot be judged: ${s.spec?.kind === "custom" ? `its '${field}' is missing or not valid` : field ? `its '${field}' is missing, empty or not text` : "it has no value a pattern can be matched against"}, and ${scope}. ${NOT_RUN}`,
      );
    case "bad-pattern":
      return denied(
        "bad-pattern",
        `${tool} is allowed only by patterns that cannot be interpreted (${scope}). ${NOT_RUN}`,
      );
    default:
      return deniedLazily(
        "no-pattern-matched",
        () => `${describe(tool, s.value)} is not allowed: ${scope}. ${NOT_RUN}`,
      );
  }
}

/**
 * Decisions on command lines, per list: an agent repeats its commands (`git status`, `npm test`),
 * and a line's decision depends only on the list and the line, once the parser is loaded, when the
 * line has no redirection (a redirection's target is judged on the file system, so it is never
 * kept). Bounded: a full cache starts again.
 */
const COMMAND_CACHE_SIZE = 512;
const commandDecisions = new WeakMap<PermissionList, Map<string, Decision>>();

function decideCommandOnce(
  list: PermissionList,
  view: ToolView,
  tool: string,
  spec: ToolPermissionSpec,
  input: Readonly<Record<string, unknown>>,
  ctx: DecideContext,
): Decision {
  const line = subjectValue(spec, input, ctx.cwd);
  if (typeof line !== "string" || /[<>]/.test(line) || !shellParserLoaded())
    return decideCommand(list, view, tool, spec, line, ctx);
  let cache = commandDecisions.get(list);
  if (!cache) {
    cache = new Map();
    commandDecisions.set(list, cache);
  }
  const key = `${tool}\0${ctx.cwd ?? ""}\0${line}`;
  const known = cache.get(key);
  if (known) return known;
  const d = decideCommand(list, view, tool, spec, line, ctx);
  if (cache.size >= COMMAND_CACHE_SIZE) cache.clear();
  cache.set(key, d);
  return d;
}

/**
 * A command line: every simple command in it (a pipeline's, a list's, a subshell's, a `$( … )`'s)
 * must be allowed and none denied; what cannot be reduced to plain words is denied whenever a
 * pattern applies; a redirection to a file is judged as a Write of that path.
 */
function decideCommand(
  list: PermissionList,
  view: ToolView,
  tool: string,
  spec: ToolPermissionSpec,
  line: unknown,
  ctx: DecideContext,
): Decision {
  const onlyWrites = view.unrestricted && view.denies.length === 0;
  if (onlyWrites && !writesGuarded(list)) return ALLOWED;
  const scope = onlyWrites
    ? "deny rules guard Write and Edit, and a redirection writes"
    : view.unrestricted
      ? `the deny rule ${ruleName(view.denies[0] as DenyRule)} applies`
      : view.scope;
  if (typeof line !== "string" || line.trim() === "")
    return denied(
      "cannot-judge",
      `${tool} call cannot be judged: its '${spec.field}' is missing, empty or not text, and ${scope}. ${NOT_RUN}`,
    );
  const script = parseShell(line);
  const call = new LazyText(() => describe(tool, line));
  if (script.unreadable)
    return denied("cannot-judge", `${call} cannot be judged: ${script.unreadable}; ${scope}. ${NOT_RUN}`);
  // Bash itself is unrestricted: only what the line visibly writes is judged, against those denies.
  if (onlyWrites) return judgeWrites(list, view, script, String(call), ctx);
  const compound = script.parts.length > 1;
  const part = (p: ShellPart) => (compound ? ` (in '${clip(p.source)}')` : "");
  if (script.unjudgeable)
    return denied("cannot-judge", `${call} cannot be judged: ${script.unjudgeable}; ${scope}. ${NOT_RUN}`);
  for (const p of script.parts) {
    const why = unjudgeable(p, isInterpreter);
    if (why)
      return denied("cannot-judge", `${call} cannot be judged: ${why}${part(p)}; ${scope}. ${NOT_RUN}`);
  }
  for (const p of view.denies.length > 0 ? script.parts : []) {
    const d = denyVerdict(view.denies, p);
    if (d)
      return d.rule
        ? denied("denied-by-rule", `${call} is denied by ${ruleName(d.rule)}${part(p)}. ${NOT_RUN}`)
        : denied(
            "cannot-judge",
            `${call} cannot be judged against the deny rule ${ruleName(view.denies[0] as DenyRule)}: ${d.why}${part(p)}. ${NOT_RUN}`,
          );
  }
  if (!view.unrestricted) {
    if (view.onlyBad)
      return denied(
        "bad-pattern",
        `${tool} is allowed only by patterns that cannot be interpreted (${view.scope}). ${NOT_RUN}`,
      );
    for (const p of script.parts) {
      if (p.assignments === p.words.length || partAllowed(view, p)) continue;
      return deniedLazily(
        "no-pattern-matched",
        () =>
          `${call} is not allowed${compound ? `: its command '${clip(p.source)}' matches none of the patterns` : ""}: ${view.scope}. ${NOT_RUN}`,
      );
    }
  }
  return script.writes.length === 0 ? ALLOWED : judgeWrites(list, view, script, String(call), ctx);
}

/** A sentence built only when a denial is written. */
class LazyText {
  #text: string | undefined;
  readonly #make: () => string;
  constructor(make: () => string) {
    this.#make = make;
  }
  toString(): string {
    this.#text ??= this.#make();
    return this.#text;
  }
}

/** A deny rule that catches the part (or its command under a wrapper), or why none can be ruled out. */
function denyVerdict(
  denies: readonly DenyRule[],
  p: ShellPart,
): { rule?: DenyRule; why?: string } | undefined {
  let words: readonly (string | null)[] | undefined =
    p.assignments === 0 ? p.words : p.words.slice(p.assignments);
  for (let depth = 0; words && depth < 8; depth++) {
    const program = words[0];
    const name = program === undefined ? undefined : program === null ? null : baseName(program);
    for (const d of denies) {
      // A deny pattern that cannot be interpreted denies every call of its tool.
      if ((d.constraint as Constraint).kind !== "command") return { rule: d };
      const m = denyMatch((d.constraint as Constraint).compiled as CommandPattern, words, name);
      if (m === "yes") return { rule: d };
      if (m === "unsure")
        return {
          why: "a word it would need to rule out is not plain text, or comes after options it cannot read",
        };
    }
    const why = evadesDeny(words, name ?? undefined);
    if (why) return { why };
    words = unwrap(words);
  }
  return undefined;
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
    if (
      rule.constraints.every((c) => c.kind === "command" && matchWords(c.compiled as CommandPattern, words))
    )
      return true;
  }
  return false;
}

/**
 * Files a command line writes by redirection, judged as Write calls: fully when Bash is held to
 * patterns, against the deny rules of Write and Edit when it is not. `2>&1`, `> /dev/null` are fine.
 */
function judgeWrites(
  list: PermissionList,
  view: ToolView,
  script: ShellScript,
  call: string,
  ctx: DecideContext,
): Decision {
  const writes = script.writes;
  if (writes.length === 0) return ALLOWED;
  if (view.unrestricted && !writesGuarded(list)) return ALLOWED;
  for (let i = 0; i < writes.length; i++) {
    const w = writes[i] as string | null;
    if (w === null)
      return denied(
        "cannot-judge",
        `${call} cannot be judged: it redirects output to a path that is not plain text. ${NOT_RUN}`,
      );
    if (script.movedFrom !== undefined && i >= script.movedFrom && !w.startsWith("/"))
      return denied(
        "cannot-judge",
        `${call} cannot be judged: it redirects output to the relative path '${shown(w)}' after a command that may change the working folder (such as 'cd'). ${NOT_RUN}`,
      );
    const file = path.posix.resolve(ctx.cwd, w);
    const d = view.unrestricted
      ? writeDenied(list, file, ctx)
      : decide(list, { tool: "Write", input: { file_path: file } }, ctx);
    if (d.kind === "denied")
      return denied(
        d.reason,
        `${call} writes ${shown(file)} by redirection, judged as a Write: ${d.message}`,
      );
  }
  return ALLOWED;
}

/** Whether deny rules guard writing (Write or Edit, removed or with patterns): a redirection is judged by them. */
function writesGuarded(list: PermissionList): boolean {
  return WRITERS.some((t) => {
    const v = viewOf(list, t);
    return v.denies.length > 0 || v.removedBy !== undefined;
  });
}

const WRITERS = ["Write", "Edit"];

function writeDenied(list: PermissionList, file: string, ctx: DecideContext): Decision {
  for (const tool of WRITERS) {
    const v = viewOf(list, tool);
    if (v.removedBy)
      return denied(
        "denied-by-rule",
        `${describe(tool, file)} is denied by ${ruleName(v.removedBy)}. ${NOT_RUN}`,
      );
    const s = subjectOf(ctx.specs.get(tool), { file_path: file }, ctx.cwd);
    for (const d of v.denies)
      if (matchOne(d.constraint as Constraint, s) !== "no")
        return denied("denied-by-rule", `${describe(tool, file)} is denied by ${ruleName(d)}. ${NOT_RUN}`);
  }
  return ALLOWED;
}

function describe(tool: string, value: string | undefined): string {
  return value === undefined ? `${tool} call` : `${tool}(${shown(value)})`;
}

function shown(value: string): string {
  return JSON.stringify(clip(value)).slice(1, -1);
}

function clip(value: string): string {
  return value.length > 120 ? `${value.slice(0, 117)}...` : value;
}
