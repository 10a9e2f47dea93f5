import path from "node:path";
import { DEFAULT_MAX_TOKENS } from "../shared/defaults.js";
import { checkFields } from "./check-fields.js";
import { DiagnosticSink } from "./diagnostics.js";
import type { Discovered } from "./discover.js";
import { isEffort } from "./effort-thinking.js";
import { readFrontmatter } from "./frontmatter.js";
import { HOOK_EVENTS } from "./hook-events.js";
import { readMcpServersField } from "./mcp-servers.js";
import { readOutputSchemaField } from "./output-schema.js";
import { withPluginRoot } from "./plugin-root.js";
import { readSource } from "./read-source.js";
import { readSandboxField } from "./sandbox-field.js";
import { readThinkingField } from "./thinking-field.js";
import type { ToolNames } from "./tool-names.js";
import type {
  CommandDefinition,
  Definition,
  Diagnostic,
  FileOutcome,
  HookEntry,
  HooksSetting,
  MainAgentDefinition,
  SkillDefinition,
  SubagentDefinition,
} from "./types.js";
import type { Field } from "./yaml-fields.js";

export interface LoadedFile {
  readonly definition?: Definition;
  readonly outcome: FileOutcome;
  readonly diagnostics: Diagnostic[];
}

/** The only names a file without frontmatter is taken for documentation by (a definition with frontmatter never is). */
const DOC_NAME =
  /^(readme|changelog|changes|contributing|license|licence|code_of_conduct|security|authors|notice)\.md$/i;
const MAX_SKILL_DESCRIPTION = 1024;
const MAX_COMPATIBILITY = 500;

/**
 * Loads one discovered file into a typed definition. `text` may be given to load from memory;
 * `known` checks list entries against the tools a run can have.
 * Contract: never throws; a file that cannot be loaded comes back `failed` with an error diagnostic,
 * and a file that is documentation rather than a definition comes back `documentation`.
 */
export function loadDefinitionFile(
  found: Discovered,
  options: { readonly text?: string; readonly known?: ToolNames } = {},
): LoadedFile {
  const { file, surface } = found;
  const sink = new DiagnosticSink(file, surface);
  const fail = (): LoadedFile => ({ outcome: "failed", diagnostics: sink.items });
  const documentation = (why: string): LoadedFile => {
    sink.add(
      "info",
      "documentation",
      `${why}: treated as documentation, not as a ${surface === "agent" ? "subagent" : "command"}`,
    );
    return { outcome: "documentation", diagnostics: sink.items };
  };
  const read = options.text ?? readSource(file, sink);
  if (read === null) return fail();
  const source = found.plugin ? withPluginRoot(read, found.plugin.root) : read;
  const fm = readFrontmatter(source, sink);
  if (fm.failed) return fail();
  if (!fm.present && (surface === "agent" || surface === "command") && DOC_NAME.test(path.basename(file))) {
    return documentation("a README-like file without frontmatter in a definitions folder");
  }
  if (!fm.present && surface === "agent") {
    const later = /^\s*\n---[ \t]*\r?\n/.test(source)
      ? " on line 1 (a '---' block further down is body text)"
      : "";
    return documentation(`no frontmatter${later}`);
  }
  if (!fm.present && surface === "skill") {
    sink.add("error", "missing-frontmatter", "a SKILL.md needs frontmatter with 'name' and 'description'");
    return fail();
  }
  const checked = checkFields(fm.fields, surface, sink, options.known);
  if (!checked.ok) return fail();
  // MCP servers (agent.md and subagents): a broken definition is an error, like any other value.
  const mcpField =
    surface === "main" || surface === "agent" ? fm.fields.find((f) => f.key === "mcpServers") : undefined;
  const mcpServers = mcpField ? readMcpServersField(mcpField, sink) : undefined;
  // The sandbox, on every surface: below agent.md it can only be turned on.
  const sandboxField = fm.fields.find((f) => f.key === "sandbox");
  const sandbox = readSandboxField(sandboxField, checked.values.sandbox, surface, sink);
  const outputSchema = readOutputSchemaField(
    fm.fields.find((f) => f.key === "outputSchema"),
    checked.values.outputSchema,
    sink,
  );
  const thinking = readThinkingField(
    fm.fields.find((f) => f.key === "thinking"),
    checked.values.thinking,
    sink,
    surface === "main" ? (checked.values.maxTokens ?? DEFAULT_MAX_TOKENS) : undefined,
  );
  if (sink.hasErrors) return fail();
  const v = checked.values;
  const common = {
    file,
    root: found.root,
    body: fm.body,
    bodyLine: fm.bodyLine,
    frontmatter: Object.fromEntries(fm.fields.map((f) => [f.key, f.value])),
    ...(checked.allowedTools && { allowedTools: checked.allowedTools }),
    ...(checked.disallowedTools && { disallowedTools: checked.disallowedTools }),
    ...optional("model", asString(v.model)),
    ...optional("sandbox", sandbox),
    ...optional("outputSchema", outputSchema),
    ...optional("effort", isEffort(v.effort) ? v.effort : undefined),
    ...optional("thinking", thinking),
  };
  const origin = surface === "main" ? "agent.md" : `${surface}:${String(v.name)}`;
  const hooks = normaliseHooks(v.hooks, origin);
  let definition: Definition;
  switch (surface) {
    case "main":
      definition = {
        ...common,
        surface,
        name: typeof v.name === "string" ? v.name : "main",
        ...optional("description", asString(v.description)),
        ...optional("maxIterations", asNumber(v.maxIterations)),
        ...optional("maxDepth", asNumber(v.maxDepth)),
        ...optional("maxTokens", asNumber(v.maxTokens)),
        ...optional("schemaValidation", v.schemaValidation as MainAgentDefinition["schemaValidation"]),
        ...optional("promptCaching", asBoolean(v.promptCaching)),
        ...optional("memory", asBoolean(v.memory)),
        ...optional("baseUrl", asString(v.baseUrl)),
        ...optional("idleTimeoutMs", asNumber(v.idleTimeoutMs)),
        ...optional("toolConcurrency", normaliseConcurrency(v.toolConcurrency)),
        ...optional("hooks", hooks),
        ...optional("mcpServers", mcpServers),
        ...optional("mcpTimeout", asNumber(v.mcpTimeout)),
        ...optional("toolSearch", typeof v.toolSearch === "boolean" ? v.toolSearch : asString(v.toolSearch)),
        ...optional("maxBudgetUsd", asNumber(v.maxBudgetUsd)),
        ...optional("fallbackModel", asList(v.fallbackModel)),
        ...optional("initialPrompt", asString(v.initialPrompt)),
      } satisfies MainAgentDefinition;
      break;
    case "agent":
      definition = {
        ...common,
        surface,
        name: v.name as string,
        description: v.description as string,
        ...optional("maxIterations", asNumber(v.maxIterations ?? v.maxTurns)),
        ...optional("hooks", hooks),
        ...optional("mcpServers", mcpServers),
        ...optional("maxBudgetUsd", asNumber(v.maxBudgetUsd)),
        ...optional("fallbackModel", asList(v.fallbackModel)),
        ...subagentFields(v),
      } satisfies SubagentDefinition;
      break;
    case "skill": {
      const dir = path.dirname(file);
      // A plugin's skills are named by their folders, as its own text calls them (`hookify:writing-rules`).
      const name = found.plugin ? path.basename(dir) : skillName(v.name, dir, fm.fields, sink);
      const description = v.description as string;
      if (description.length > MAX_SKILL_DESCRIPTION) {
        sink.add(
          "warning",
          "description-too-long",
          `description is ${description.length} characters; the Agent Skills limit is ${MAX_SKILL_DESCRIPTION}`,
          ...keyPos(fm.fields, "description"),
        );
      }
      if (typeof v.compatibility === "string" && v.compatibility.length > MAX_COMPATIBILITY) {
        sink.add(
          "warning",
          "compatibility-too-long",
          `compatibility is ${v.compatibility.length} characters; the limit is ${MAX_COMPATIBILITY}`,
          ...keyPos(fm.fields, "compatibility"),
        );
      }
      definition = {
        ...common,
        surface,
        name,
        description,
        dir,
        ...invocableFields(v),
        ...optional("hooks", hooks),
      } satisfies SkillDefinition;
      break;
    }
    case "command":
      definition = {
        ...common,
        surface,
        name: commandName(found, sink),
        ...optional("description", typeof v.description === "string" ? v.description : firstLine(fm.body)),
        ...invocableFields(v),
      } satisfies CommandDefinition;
      break;
  }
  if (surface === "skill" || surface === "command") checkBody(fm.body, fm.bodyLine, sink);
  if (found.plugin && surface !== "main")
    definition = { ...definition, name: `${found.plugin.name}:${definition.name}`, plugin: found.plugin };
  return { definition, outcome: "loaded", diagnostics: sink.items };
}

function optional<K extends string, T>(key: K, value: T | undefined): { [P in K]?: T } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: T };
}

function invocableFields(v: Record<string, unknown>) {
  return {
    ...optional("argumentHint", asString(v["argument-hint"])),
    ...optional("disableModelInvocation", asBoolean(v["disable-model-invocation"])),
    ...optional("userInvocable", asBoolean(v["user-invocable"])),
    ...optional<"context", "inline" | "fork">(
      "context",
      v.context === "fork" || v.context === "inline" ? v.context : undefined,
    ),
    ...optional("agent", asString(v.agent)),
  };
}

// The schema has already checked these values; the narrowing keeps the types honest.
const asString = (x: unknown) => (typeof x === "string" ? x : undefined);
const asNumber = (x: unknown) => (typeof x === "number" ? x : undefined);
const asBoolean = (x: unknown) => (typeof x === "boolean" ? x : undefined);
/** Claude Code's subagent keys agentmd acts on, as the schema let them through. */
function subagentFields(v: Record<string, unknown>): Partial<SubagentDefinition> {
  const skills = typeof v.skills === "string" ? v.skills.split(",").map((s) => s.trim()) : asList(v.skills);
  return {
    ...optional("permissionMode", v.permissionMode as SubagentDefinition["permissionMode"]),
    ...optional("skills", skills?.filter(Boolean)),
    ...optional("initialPrompt", asString(v.initialPrompt)),
    ...optional("background", asBoolean(v.background)),
    ...optional("isolation", v.isolation === "worktree" ? ("worktree" as const) : undefined),
  };
}

const asList = (x: unknown) =>
  typeof x === "string"
    ? [x]
    : Array.isArray(x)
      ? x.filter((m): m is string => typeof m === "string")
      : undefined;

/** The Agent Skills naming rule: lowercase letters, digits and single hyphens, at most 64 characters. */
const SKILL_NAME = /^(?=.{1,64}$)[a-z0-9]+(-[a-z0-9]+)*$/;

/**
 * A skill's name, as the Agent Skills client guide has clients load it: the name written when it
 * keeps the rule (a warning when it differs from the folder's); else the folder's name, with a
 * warning (a name that breaks the rule, or none, never keeps a skill out).
 */
function skillName(written: unknown, dir: string, fields: readonly Field[], sink: DiagnosticSink): string {
  const folder = path.basename(dir);
  const at = valuePos(fields, "name");
  if (typeof written !== "string") {
    sink.add("warning", "skill-name", `a skill without a 'name' is named by its folder: '${folder}'`, ...at);
    return folder;
  }
  if (!SKILL_NAME.test(written)) {
    sink.add(
      "warning",
      "skill-name",
      `skill name '${written}' breaks the Agent Skills rule (lowercase letters, digits and single hyphens, at most 64 characters), so it is named by its folder: '${folder}'`,
      ...at,
    );
    return folder;
  }
  if (written !== folder)
    sink.add(
      "warning",
      "skill-name-folder",
      `skill name '${written}' differs from its folder name '${folder}'`,
      ...keyPos(fields, "name"),
    );
  return written;
}

function valuePos(
  fields: readonly { key: string; valuePos: { line: number; column: number } }[],
  key: string,
): [number, number] {
  const f = fields.find((x) => x.key === key);
  return f ? [f.valuePos.line, f.valuePos.column] : [1, 1];
}

function keyPos(
  fields: readonly { key: string; keyPos: { line: number; column: number } }[],
  key: string,
): [number, number] {
  const f = fields.find((x) => x.key === key);
  return f ? [f.keyPos.line, f.keyPos.column] : [1, 1];
}

function normaliseConcurrency(value: unknown): MainAgentDefinition["toolConcurrency"] {
  if (value === undefined) return undefined;
  if (typeof value === "boolean") return { enabled: value };
  return value as MainAgentDefinition["toolConcurrency"];
}

/** Accepts both `{ matcher, command }` and Claude Code's `{ matcher, hooks: [{ type, command }] }`. */
export function normaliseHooks(value: unknown, origin?: string): HooksSetting | undefined {
  if (value === undefined || value === null || typeof value !== "object") return undefined;
  const out: Record<string, HookEntry[]> = {};
  for (const event of HOOK_EVENTS) {
    const list = (value as Record<string, unknown>)[event];
    if (!Array.isArray(list)) continue;
    out[event] = list.flatMap((item: Record<string, unknown>) => {
      const matcher = typeof item.matcher === "string" ? item.matcher : ".*";
      const entry = (h: Record<string, unknown>) => ({
        matcher,
        command: h.command as string,
        ...(typeof h.timeout === "number" && { timeout: h.timeout }),
        ...(origin !== undefined && { origin }),
      });
      // Only command hooks run: another type (`prompt`, …) is left out, as checkHooks said.
      const runs = (h: Record<string, unknown>) =>
        typeof h.command === "string" && (h.type === undefined || h.type === "command");
      if (Array.isArray(item.hooks)) return (item.hooks as Record<string, unknown>[]).filter(runs).map(entry);
      return runs(item) ? [entry(item)] : [];
    });
  }
  return out;
}

/**
 * `commands/git/commit.md` → `git:commit`. A file name that already holds the namespace
 * (`svelte/svelte:test.md`) does not repeat it.
 */
function commandName(found: Discovered, sink: DiagnosticSink): string {
  const rel = path.relative(found.base, found.file).replace(/\.md$/i, "");
  const parts = rel.split(path.sep);
  const fileName = parts.pop() ?? rel;
  const fileParts = fileName.split(":");
  if (fileParts.length > 1) {
    const prefixed =
      parts.every((p, i) => fileParts[i] === p) && parts.length > 0 && fileParts.length > parts.length;
    const name = prefixed ? fileParts.join(":") : [...parts, ...fileParts].join(":");
    sink.add(
      "warning",
      "colon-in-file-name",
      `':' in a file name does not survive every file system; this command is /${name} — prefer ${[...name.split(":")].join("/")}.md`,
    );
    return name;
  }
  return [...parts, fileName].join(":");
}

function firstLine(body: string): string | undefined {
  for (let start = 0; start < body.length; ) {
    const end = body.indexOf("\n", start);
    const line = body.slice(start, end === -1 ? body.length : end);
    const t = line.replace(/^#+\s*/, "").trim();
    if (t !== "") return t;
    if (end === -1) break;
    start = end + 1;
  }
  return undefined;
}

/** Body checks that catch mistakes before a run: `$0`, which is not an argument here (reported once). */
function checkBody(body: string, bodyLine: number, sink: DiagnosticSink): void {
  if (!body.includes("$0")) return;
  // Money is not a placeholder: `$0.5M`, `$0,50` (a digit after a point or comma).
  const m = /(?<!\\)\$0(?![\d]|[.,]\d)/.exec(body);
  if (!m) return;
  const before = body.slice(0, m.index);
  const lineStart = before.lastIndexOf("\n") + 1;
  sink.add(
    "warning",
    "dollar-zero",
    "'$0' is not an argument (arguments are $1…$9, or $ARGUMENTS[0] for the first); it is left as written",
    bodyLine + before.split("\n").length - 1,
    m.index - lineStart + 1,
  );
}
