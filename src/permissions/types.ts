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

/** One compiled pattern of one tool; `matches` is the only thing `decide` asks of it. */
export interface Constraint {
  readonly kind: SubjectKind | "bad";
  /** The pattern as written (after `${…}` substitution, before anchoring). */
  readonly text: string;
  /** For `bad`: why the pattern cannot be interpreted. */
  readonly problem?: string;
  /** Matcher-specific compiled form. */
  readonly compiled: unknown;
}

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
}

export type DenyReason =
  | "not-offered"
  | "denied-by-rule"
  | "cannot-judge"
  | "no-pattern-matched"
  | "bad-pattern";

export type Decision =
  | { readonly kind: "allowed" }
  | { readonly kind: "denied"; readonly reason: DenyReason; readonly message: string };

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
}

export interface ToolCall {
  readonly tool: string;
  readonly input: unknown;
}
