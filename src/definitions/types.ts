/** The four markdown surfaces agentmd reads. */
export type Surface = "main" | "agent" | "skill" | "command";

export const SURFACES: readonly Surface[] = ["main", "agent", "skill", "command"];

export type Severity = "error" | "warning" | "info";

/** A place in a source file; line and column are 1-based. */
export interface SourcePos {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

export interface Diagnostic extends SourcePos {
  readonly severity: Severity;
  /** Stable, kebab-case; tests and `--json` consumers key on it. */
  readonly code: string;
  readonly message: string;
  readonly surface?: Surface;
}

/** One entry of an allow-list or deny list: `Name` or `Name(pattern)`. */
export interface ToolEntry {
  /** The tool name, with a case-only mismatch of a built-in already folded (`read` → `Read`). */
  readonly name: string;
  /** The text between the parentheses, as written; absent for a name-only entry. */
  readonly pattern?: string;
  /** The entry exactly as written. */
  readonly raw: string;
  readonly at: SourcePos;
}

/** A parsed `allowed-tools` / `tools` / `disallowed-tools` value. */
export interface ToolList {
  /** The key as written (`tools`, `allowed-tools`, `disallowedTools`, …). */
  readonly key: string;
  readonly entries: readonly ToolEntry[];
  readonly at: SourcePos;
}

export type ModelSetting = string;

export interface HookEntry {
  readonly matcher: string;
  readonly command: string;
}

export interface HooksSetting {
  readonly PreToolUse?: readonly HookEntry[];
  readonly PostToolUse?: readonly HookEntry[];
}

interface DefinitionBase {
  readonly surface: Surface;
  readonly name: string;
  readonly description?: string;
  /** Absolute path of the markdown file. */
  readonly file: string;
  /** The folder the surface folders hang from (holds `agent.md`, `agents/`, `skills/`, …). */
  readonly root: string;
  /** The markdown body: the prompt. */
  readonly body: string;
  /** 1-based line of the file on which the body starts. */
  readonly bodyLine: number;
  readonly allowedTools?: ToolList;
  readonly disallowedTools?: ToolList;
  readonly model?: ModelSetting;
  /** Every frontmatter key as parsed (plain data, no prototype), known or not. */
  readonly frontmatter: Readonly<Record<string, unknown>>;
}

export interface MainAgentDefinition extends DefinitionBase {
  readonly surface: "main";
  readonly maxIterations?: number;
  readonly maxDepth?: number;
  readonly maxTokens?: number;
  readonly schemaValidation?: "off" | "warn" | "enforce";
  readonly promptCaching?: boolean;
  readonly toolConcurrency?: {
    readonly enabled?: boolean;
    readonly maxConcurrency?: number;
    readonly perBatchMax?: number;
  };
  readonly hooks?: HooksSetting;
  readonly baseUrl?: string;
}

export interface SubagentDefinition extends DefinitionBase {
  readonly surface: "agent";
  readonly description: string;
  readonly maxIterations?: number;
  readonly hooks?: HooksSetting;
}

interface InvocableFields {
  readonly argumentHint?: string;
  readonly disableModelInvocation?: boolean;
  readonly userInvocable?: boolean;
  readonly context?: "inline" | "fork";
  readonly agent?: string;
}

export interface SkillDefinition extends DefinitionBase, InvocableFields {
  readonly surface: "skill";
  readonly description: string;
  /** The skill's folder; `${SKILL_DIR}` points here. */
  readonly dir: string;
  readonly hooks?: HooksSetting;
}

export interface CommandDefinition extends DefinitionBase, InvocableFields {
  readonly surface: "command";
}

export type Definition = MainAgentDefinition | SubagentDefinition | SkillDefinition | CommandDefinition;

/** What happened to each file that was looked at. */
export type FileOutcome = "loaded" | "documentation" | "failed";

export interface FileReport {
  readonly file: string;
  readonly surface: Surface;
  readonly outcome: FileOutcome;
}

export interface LoadResult {
  readonly definitions: readonly Definition[];
  readonly diagnostics: readonly Diagnostic[];
  readonly files: readonly FileReport[];
}
