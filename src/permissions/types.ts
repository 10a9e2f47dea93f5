import type { CommandPattern } from "./command-pattern.js";
import type { NamePattern, PathPattern } from "./path-pattern.js";
import type { ShellParser } from "./shell/shell-parser.js";

/**
 * The permission engine's data. Everything here is plain data: lists are compiled from the
 * loader's entries once, intersected at every hop, and judged by one pure function, `decide`.
 */

/** What a tool's patterns are matched against. The tool decides; the pattern text cannot tell. */
export type SubjectKind = "command" | "path" | "name" | "custom";

/** Where an entry was written, for `agentmd tools` and denial sentences. */
export interface Origin {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  /** The entry as written, e.g. `Bash(git:*)`. */
  readonly raw: string;
}

/**
 * How one tool is judged, declared by the tool: the kind of its patterns and the input `field` they
 * are matched against. A value that is missing, empty or not a string means the call cannot be
 * judged, and is denied whenever the tool has patterns. `custom` judges a field its own way.
 */
export interface ToolPermissionSpec {
  readonly kind: SubjectKind;
  /** The input field the patterns judge (`command`, `file_path`, `url`, …). */
  readonly field: string;
  /** An absent field means the working folder (Glob and Grep search it by default). */
  readonly defaultToCwd?: boolean;
  /**
   * The tool whose patterns bind this one's paths too, as Claude Code applies them: `Read(…)`
   * entries (allow or deny) also constrain Grep and Glob; `Edit(…)` entries also constrain Write.
   */
  readonly family?: string;
  readonly custom?: CustomRule;
}

export interface CustomRule {
  /** A sentence saying what is wrong with the pattern, or undefined when it is usable. */
  validate(pattern: string): string | undefined;
  /** Whether the field's value matches; undefined when the call cannot be judged. */
  matches(pattern: string, value: unknown): boolean | undefined;
}

export type ToolSpecs = ReadonlyMap<string, ToolPermissionSpec>;

/** Which tools a rule applies to: every tool, every tool with a name prefix, or one tool. */
export interface ToolMatcher {
  readonly kind: "any" | "prefix" | "exact";
  /** The name (`exact`) or prefix (`prefix`, e.g. `mcp__github__`); empty for `any`. */
  readonly value: string;
  /** Names and prefixes (ending in `*`) that this matcher does not cover. */
  readonly except: readonly string[];
}

/**
 * One compiled pattern of one tool, by the kind of its subject; `bad` when it cannot be
 * interpreted. `text` is the pattern as written (after `${…}` substitution, before anchoring).
 */
export type Constraint =
  | { readonly kind: "command"; readonly text: string; readonly compiled: CommandPattern }
  | { readonly kind: "path"; readonly text: string; readonly compiled: PathPattern }
  | { readonly kind: "name"; readonly text: string; readonly compiled: NamePattern }
  /** A tool's own rule: `compiled` is the pattern its `CustomRule` is asked about. */
  | { readonly kind: "custom"; readonly text: string; readonly compiled: string }
  /** `problem`: why the pattern cannot be interpreted. */
  | { readonly kind: "bad"; readonly text: string; readonly problem: string; readonly compiled: null };

/** A rule allows the calls of the tools its matcher covers that satisfy every constraint. */
export interface Rule {
  readonly tool: ToolMatcher;
  /** All must hold. Empty: every call of the tool. */
  readonly constraints: readonly Constraint[];
  readonly origins: readonly Origin[];
}

export interface DenyRule {
  readonly tool: ToolMatcher;
  /** Absent: the tool is removed entirely. */
  readonly constraint?: Constraint;
  readonly origin: Origin;
}

/**
 * The tools a run may use. `rules: null` means no restriction (no list anywhere in the chain);
 * `rules: []` means nothing is allowed — never confused with the former.
 */
export interface PermissionList {
  readonly rules: readonly Rule[] | null;
  readonly deny: readonly DenyRule[];
  /**
   * The hops whose allow-lists were intersected into this one, caller first, each with its own
   * list: a call the list does not allow is told which hop narrowed the run.
   */
  readonly narrowedBy?: readonly Narrowing[];
}

/** A hop that narrows every run below it: agent.md, a subagent, a skill or a command, and its file. */
export interface Narrowing {
  /** `agent.md`, `the skill 'notes'`, `the subagent 'reviewer'`, `the command /commit`. */
  readonly hop: string;
  /** Its file, relative to its project. */
  readonly file: string;
  /** Its own allow-list (`rules: null`: it restricts nothing). */
  readonly own: PermissionList;
}

export type DenyReason =
  | "not-offered"
  | "denied-by-rule"
  | "cannot-judge"
  | "no-pattern-matched"
  | "bad-pattern";

/**
 * A decision is data: what was judged and which rule or pattern set decided it. `denialText`
 * turns a denial into the sentence the model and the user read, where it is shown.
 */
export type Decision = { readonly kind: "allowed" } | Denial;

export type Denial =
  | DenialOf<"not-offered">
  /** A deny rule caught the call; a rule without a pattern and no subject: the tool is removed. */
  | (DenialOf<"denied-by-rule"> & {
      readonly rule: DenyRule;
      readonly subject?: string;
      readonly part?: string;
    })
  | (DenialOf<"no-pattern-matched"> & {
      readonly subject?: string;
      readonly part?: string;
      readonly scope: Scope;
    })
  | (DenialOf<"bad-pattern"> & { readonly scope: Scope })
  | (DenialOf<"cannot-judge"> & {
      readonly subject?: string;
      readonly why: Unjudged;
      readonly part?: string;
      readonly scope?: Scope;
    });

interface DenialOf<R extends DenyReason> {
  readonly kind: "denied";
  readonly reason: R;
  /** The tool whose rules decided (Read's, for a Grep call its deny rules caught). */
  readonly tool: string;
  /** The hop whose own allow-list does not admit the call (the one that narrowed the run), when one does not. */
  readonly narrowedBy?: { readonly hop: string; readonly file: string };
  /**
   * The calls the judgement went through before it reached this one, outermost first: a command
   * line's redirection judged as a Write, a path followed through a symlink, a family's rules.
   * `part` above is the command of a compound line (its source as written).
   */
  readonly through?: readonly Hop[];
}

/** The rules that applied to a call none of them admitted. */
export type Scope =
  /** The allow patterns of `tool` (as written, joined by ∧ within a rule). */
  | { readonly kind: "patterns"; readonly tool: string; readonly patterns: readonly string[] }
  | { readonly kind: "deny-rule"; readonly rule: DenyRule }
  /** Bash is unrestricted, but deny rules guard Write and Edit, and a redirection writes. */
  | { readonly kind: "writes-guarded" };

/** Why a call cannot be judged. `detail`: the shell reader's or the pattern's own account. */
export type Unjudged =
  /** The subject field is missing, empty or not text (`custom`: or not valid for the tool's rule). */
  | { readonly kind: "no-value"; readonly field?: string; readonly custom?: boolean }
  | { readonly kind: "unreadable"; readonly detail: string }
  /**
   * No deny rule can be ruled out: `rules` holds the one that could match, or, when the doubt is
   * not about one rule (a command that runs another), every deny rule of the tool.
   */
  | { readonly kind: "deny-unsure"; readonly rules: readonly DenyRule[]; readonly detail: string }
  | { readonly kind: "redirect-not-plain" }
  | { readonly kind: "redirect-after-cd"; readonly target: string };

/** One step from the call made to the call judged. */
export type Hop =
  | { readonly via: "redirection"; readonly tool: string; readonly line: string; readonly file: string }
  | { readonly via: "symlink"; readonly tool: string; readonly subject: string; readonly real: string }
  | { readonly via: "family"; readonly tool: string; readonly subject: string; readonly family: string };

/** Values patterns are anchored with when a list is compiled. */
export interface CompileContext {
  readonly specs: ToolSpecs;
  /** Relative path patterns are anchored here; `${PROJECT_DIR}` points here. */
  readonly projectDir: string;
  /** `~/` in path patterns. */
  readonly home: string;
  /** `${SKILL_DIR}` in a skill's patterns. */
  readonly skillDir?: string;
  /** `${CLAUDE_PLUGIN_ROOT}`, when the definition came from a plugin. */
  readonly pluginRoot?: string;
}

/** What a call is judged in: its tool specs and the run's working folder. */
export interface DecideContext {
  readonly specs: ToolSpecs;
  readonly cwd: string;
  /**
   * A path's real path (symlinks followed, as far as the path exists), when the caller can look it
   * up. Given, a PATH call is judged on both: both must be allowed and neither denied.
   */
  readonly realPath?: (absolutePath: string) => string;
  /**
   * The bash parser command lines are read with (`loadShellParser()`). Absent: only a line of
   * plain words can be read; any other is "cannot be judged" wherever a pattern applies.
   */
  readonly shell?: ShellParser;
  /**
   * A file's text, or undefined when it is absent or cannot be read: the deny list follows
   * `npm run`/`npm test`/`pnpm`/`yarn` through package.json's scripts with it. Absent: those
   * scripts cannot be seen, and a deny list denies running them.
   */
  readonly readFile?: (absolutePath: string) => string | undefined;
}

export interface ToolCall {
  readonly tool: string;
  readonly input: unknown;
}
