import type { CommandPattern } from "./command-pattern.js";
import { covers } from "./tool-matcher.js";
import type { Decision, Denial, DenyRule, PermissionList, Rule, Scope } from "./types.js";

/**
 * The rules of one list that apply to one tool, with the single-pattern rules folded into sets and
 * one regular expression, so that a decision costs a lookup and one match however long the list.
 */
export interface ToolView {
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
  /** The tool's allow patterns, for a denial: "this run allows Bash only for: git:*, npm test". */
  readonly scope: Scope;
}

/** The key of an exact command in `ToolView.exact`. */
export const wordsKey = (words: readonly string[]) => words.join("\0");

/**
 * What a compiled list keeps beside its rules: the view of each tool it was asked about, and the
 * decisions on command lines it made. Lists are immutable, so neither changes a result; both keep
 * the per-call work small. A tool's view is built the first time the tool is judged (the names a
 * list can be asked about are open: MCP tools, custom tools).
 */
export class ListIndex {
  readonly #views = new Map<string, ToolView>();
  /**
   * Decisions on command lines: an agent repeats its commands (`git status`, `npm test`), and a
   * line's decision depends only on the list and the line once the parser is given, when the line
   * has no redirection (a redirection's target is judged on the file system, so it is never kept).
   * Bounded: a full memo starts again.
   */
  readonly #commands = new Map<string, Decision>();

  constructor(readonly list: PermissionList) {}

  view(tool: string): ToolView {
    let v = this.#views.get(tool);
    if (!v) {
      v = buildToolView(this.list, tool);
      this.#views.set(tool, v);
    }
    return v;
  }

  /** The decision kept for `key`, or `judge`'s, kept. */
  command(key: string, judge: () => Decision): Decision {
    const known = this.#commands.get(key);
    if (known) return known;
    const d = judge();
    if (this.#commands.size >= COMMAND_MEMO_SIZE) this.#commands.clear();
    this.#commands.set(key, d);
    return d;
  }
}

const COMMAND_MEMO_SIZE = 512;

/** A list as `compileList` and `intersect` return it: with its index. */
export type IndexedList = PermissionList & { readonly index: ListIndex };

/** A list of these rules with an index of its own: what `compileList` and `intersect` return. */
export function indexed(rules: PermissionList["rules"], deny: PermissionList["deny"]): IndexedList {
  return { rules, deny, index: new ListIndex({ rules, deny }) };
}

/**
 * The index of a compiled list. A list written by hand, or a copy whose rules were changed, gets
 * one for this call only: an index never answers for rules it was not built from.
 */
export function indexOf(list: PermissionList): ListIndex {
  const own = (list as Partial<IndexedList>).index;
  return own instanceof ListIndex && own.list.rules === list.rules && own.list.deny === list.deny
    ? own
    : new ListIndex(list);
}

/** The denial of a tool no call of which this list allows, before its input is looked at. */
export function refusedOutright(view: ToolView, tool: string): Denial | undefined {
  if (view.removedBy) return { kind: "denied", reason: "denied-by-rule", tool, rule: view.removedBy };
  if (view.notOffered) return { kind: "denied", reason: "not-offered", tool };
  return undefined;
}

function buildToolView(list: PermissionList, tool: string): ToolView {
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
      const p = c.compiled;
      const first = p.words[0];
      if (p.kind === "exact") exact.add(wordsKey(p.words));
      else if (first === undefined) anyCommand = true;
      else prefixes.set(first, [...(prefixes.get(first) ?? []), p]);
    } else if (c.compiled.re === null) exact.add(c.compiled.text);
    else sources.push(`(?:${c.compiled.re.source})`);
  }
  const patterns = (rules ?? []).map((r) => r.constraints.map((c) => c.text).join(" ∧ "));
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
    scope: { kind: "patterns", tool, patterns },
  };
}
