import { homedir } from "node:os";
import path from "node:path";
import PQueue from "p-queue";
import { findProjectRoot } from "../definitions/discover.js";
import { definitionFromObject } from "../definitions/from-object.js";
import { loadProject } from "../definitions/load.js";
import type {
  CommandDefinition,
  Definition,
  Diagnostic,
  MainAgentDefinition,
  SkillDefinition,
  SubagentDefinition,
  Surface,
} from "../definitions/types.js";
import { type Hooks, mergeHooks } from "../loop/hooks.js";
import { createExternalTools, type ExternalTools } from "../mcp/external-tools.js";
import { createAnthropicModel } from "../model/anthropic.js";
import type { Model } from "../model/model.js";
import type { Price } from "../model/models.js";
import { definitionList } from "../permissions/definition-list.js";
import type { PermissionList } from "../permissions/types.js";
import { ConfigError } from "../shared/errors.js";
import { NODE_FS, type ToolFs } from "../tools/builtin/fs.js";
import { createBuiltinTools } from "../tools/builtin/index.js";
import type { RunnerOptions } from "./runner-options.js";
import { resolveSettings, type Settings } from "./settings.js";
import { type ToolCatalog, toolCatalog } from "./tool-catalog.js";

/** What every run of one runner shares: definitions, tools, the pool, the model, settings. */
export interface Core {
  readonly projectDir: string;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly definitions: readonly Definition[];
  readonly diagnostics: readonly Diagnostic[];
  readonly main: MainAgentDefinition | undefined;
  readonly agents: ReadonlyMap<string, SubagentDefinition>;
  readonly skills: ReadonlyMap<string, SkillDefinition>;
  readonly commands: ReadonlyMap<string, CommandDefinition>;
  /** The tools of every run (Task and Skill are added per run), their specs and names. */
  readonly catalog: ToolCatalog;
  /** The file system the tools use; `@file` mentions are looked up in it. */
  readonly fs: ToolFs;
  /** One pool for the tool calls of every run of the process. */
  readonly pool: PQueue;
  readonly model: Model;
  readonly settings: Settings;
  /** agent.md's hooks, then those given in code. */
  readonly hooks: Hooks;
  readonly prices?: Readonly<Record<string, Price>>;
  /** MCP servers (started per run, as needed) and when tool definitions are deferred to ToolSearch. */
  readonly external: ExternalTools;
  /** A definition's own allow and deny lists, compiled (once). */
  listOf(def: Definition): PermissionList;
}

/**
 * Loads the project, registers the tools, resolves the settings and prepares the model. Throws
 * `ConfigError` for what a user must fix: a broken agent.md, definitions in code that do not load,
 * no API key.
 */
export function createCore(options: RunnerOptions, notice: (message: string) => void): Core {
  const env = options.env ?? process.env;
  const projectDir =
    typeof options.projectDir === "string"
      ? path.resolve(options.projectDir)
      : findProjectRoot(options.cwd ?? process.cwd(), env.HOME);
  const builtin = options.tools?.builtin;
  const catalog = toolCatalog([
    ...(builtin === false ? [] : createBuiltinTools(builtin || {})),
    ...(options.tools?.extra ?? []),
  ]);
  const definitions = loadDefinitions(options, projectDir, catalog.names);
  const main = definitions.all.find((d): d is MainAgentDefinition => d.surface === "main");
  const settings = resolveSettings(options, main, env);
  const m = options.model ?? {};
  const model = createAnthropicModel({
    env,
    ...(m.apiKey && { apiKey: m.apiKey }),
    ...((m.baseURL ?? main?.baseUrl) && { baseURL: m.baseURL ?? main?.baseUrl }),
    ...(m.maxRetries !== undefined && { maxRetries: m.maxRetries }),
    ...(settings.idleTimeoutMs !== undefined && { idleTimeoutMs: settings.idleTimeoutMs }),
    ...(m.fetch && { fetch: m.fetch }),
    ...(m.record && { record: m.record }),
    ...(m.replay && { replay: m.replay }),
    ...(options.backoff && { backoff: options.backoff }),
    onNotice: notice,
  });
  const home = env.HOME ?? homedir();
  const lists = new WeakMap<Definition, PermissionList>();
  const cwd = path.resolve(
    options.cwd ?? (typeof options.projectDir === "string" ? projectDir : process.cwd()),
  );
  const external = createExternalTools({
    options,
    main,
    definitions: definitions.all,
    projectDir: options.projectDir !== undefined ? projectDir : undefined,
    cwd,
    env,
  });
  return {
    projectDir,
    cwd,
    external,
    env,
    definitions: definitions.all,
    diagnostics: definitions.diagnostics,
    main,
    agents: bySurface<SubagentDefinition>(definitions.all, "agent"),
    skills: bySurface<SkillDefinition>(definitions.all, "skill"),
    commands: bySurface<CommandDefinition>(definitions.all, "command"),
    catalog,
    fs: (builtin ? builtin.fs : undefined) ?? NODE_FS,
    pool: new PQueue({ concurrency: settings.concurrency.maxConcurrency }),
    model,
    settings,
    hooks: mergeHooks(main?.hooks, options.hooks),
    ...(m.prices && { prices: m.prices }),
    listOf(def) {
      let l = lists.get(def);
      if (!l) {
        l = definitionList(def, { specs: catalog.specs, home });
        lists.set(def, l);
      }
      return l;
    },
  };
}

function bySurface<D extends Definition>(all: readonly Definition[], surface: Surface): Map<string, D> {
  const m = new Map<string, D>();
  for (const d of all) if (d.surface === surface) m.set(d.name, d as D);
  return m;
}

/**
 * The project's files (when a project folder is given), then the definitions given as objects, which
 * win over same-named files. A main agent that does not load is an error: running without its list
 * would run unrestricted.
 */
function loadDefinitions(options: RunnerOptions, root: string, toolNames: readonly string[]) {
  const loaded =
    options.projectDir !== false
      ? loadProject(root, { toolNames })
      : { definitions: [], diagnostics: [], files: [] };
  const mainErrors = loaded.diagnostics.filter((d) => d.severity === "error" && d.surface === "main");
  if (mainErrors.length > 0 && !options.main) {
    throw new ConfigError(
      `agent.md cannot be loaded:\n${mainErrors.map((d) => located(d, root)).join("\n")}`,
    );
  }
  const fromCode = definitionsFromCode(options, root, toolNames);
  const codeMain = fromCode.some((d) => d.surface === "main");
  return {
    all: [...loaded.definitions.filter((d) => !(codeMain && d.surface === "main")), ...fromCode],
    diagnostics: loaded.diagnostics,
  };
}

const located = (d: Diagnostic, root: string) =>
  `  ${path.relative(root, d.file)}:${d.line}:${d.column}: ${d.message} [${d.code}]`;

/** The definitions given as objects, validated as files are; any error throws, listing them all. */
function definitionsFromCode(
  options: RunnerOptions,
  root: string,
  toolNames: readonly string[],
): Definition[] {
  const inputs: [Surface, object][] = [
    ...(options.main ? [["main", options.main] as [Surface, object]] : []),
    ...(options.agents ?? []).map((d) => ["agent", d] as [Surface, object]),
    ...(options.skills ?? []).map((d) => ["skill", d] as [Surface, object]),
    ...(options.commands ?? []).map((d) => ["command", d] as [Surface, object]),
  ];
  const out: Definition[] = [];
  const errors: string[] = [];
  for (const [surface, input] of inputs) {
    const r = definitionFromObject(surface, input, root, { toolNames });
    for (const d of r.diagnostics) if (d.severity === "error") errors.push(located(d, root));
    if (r.definition) out.push(r.definition);
  }
  if (errors.length > 0)
    throw new ConfigError(`definitions given in code cannot be loaded:\n${errors.join("\n")}`);
  return out;
}
