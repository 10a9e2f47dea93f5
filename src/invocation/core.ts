import { existsSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import PQueue from "p-queue";
import { findProjectRoot, userDirOf } from "../definitions/discover.js";
import { definitionFromObject } from "../definitions/from-object.js";
import { loadProject } from "../definitions/load.js";
import { type ClaudeSettings, loadSettings, mcpJsonFilter, NO_SETTINGS } from "../definitions/settings.js";
import { toolNames } from "../definitions/tool-names.js";
import type { Definition, Diagnostic, MainAgentDefinition, Surface } from "../definitions/types.js";
import type { CallApproval } from "../loop/execute-call.js";
import { createExternalTools, type ExternalTools } from "../mcp/external-tools.js";
import type { Model } from "../model/model.js";
import type { Price } from "../model/models.js";
import { decide } from "../permissions/decide.js";
import { intersect } from "../permissions/index.js";
import type { PermissionList } from "../permissions/types.js";
import { ConfigError } from "../shared/errors.js";
import { isInside } from "../shared/is-inside.js";
import { NODE_FS, type ToolFs } from "../tools/builtin/fs.js";
import { createBuiltinTools } from "../tools/builtin/index.js";
import { realPathOf } from "../tools/real-path.js";
import { withholdHooks, withoutProjectCode } from "../trust/restrict.js";
import { createApprovals, listApproves, sessionPermissions } from "./approvals.js";
import { defaultSystemPrompt } from "./default-prompt.js";
import { type ElicitDesk, elicitDesk } from "./elicit-hooks.js";
import { createHopCore, type HopCore } from "./hop-core.js";
import { loadMemory, type Memory } from "./memory.js";
import { modelOf } from "./model-of.js";
import { runnerDenyList, sessionHooks } from "./runner-deny-list.js";
import type { RunnerOptions } from "./runner-options.js";
import { resolveSettings } from "./settings.js";
import { type ToolCatalog, toolCatalog } from "./tool-catalog.js";

/** What every run of one runner shares: definitions, tools, the pool, the model, settings. */
export interface Core extends HopCore {
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * The environment agentmd was started with, before any settings' `env`: where its helper programs
   * are found, and whose HOME is `~` in every rule (whatever a settings file sets HOME to).
   */
  readonly startEnv: Readonly<Record<string, string | undefined>>;
  readonly diagnostics: readonly Diagnostic[];
  /** The file system the tools use; `@file` mentions are looked up in it. */
  readonly fs: ToolFs;
  /** One pool for the tool calls of every run of the process. */
  readonly pool: PQueue;
  readonly model: Model;
  readonly prices?: Readonly<Record<string, Price>>;
  /** MCP servers (started per run, as needed) and when tool definitions are deferred to ToolSearch. */
  readonly external: ExternalTools;
  /** Whether a call the lists allow may run without asking, and who asks (one per session). */
  readonly approval: CallApproval;
  /** The project's Claude Code settings, merged. */
  readonly claude: ClaudeSettings;
  /** The main agent's context (CLAUDE.md and kin, the environment); absent with `memory: false`. */
  readonly memory?: Memory;
  /** The main agent's system prompt: its body (or the one given instead), the context, what is appended. */
  readonly system: string;
  /** Warnings about the session's configuration, told at the start of each run. */
  readonly notices: readonly string[];
  /** The project's files run without their code (`RunnerOptions.restricted`). */
  readonly restricted: boolean;
  /** Claude Code's permission mode of the session, as hooks are told it (`permission_mode`). */
  readonly permissionMode: string;
  /** Who answers the servers' questions, through the session's Elicitation hooks. */
  readonly elicitation: ElicitDesk;
}

/**
 * Loads the project, registers the tools, resolves the settings and prepares the model (the one
 * given, or the Anthropic API's). Throws
 * `ConfigError` for what a user must fix: a broken agent.md, definitions in code that do not load,
 * no API key.
 */
export function createCore(options: RunnerOptions): Core {
  const given = options.env ?? process.env;
  const projectDir =
    typeof options.projectDir === "string"
      ? path.resolve(options.projectDir)
      : findProjectRoot(options.cwd ?? process.cwd(), given.HOME);
  const builtin = options.tools?.builtin;
  const catalog = toolCatalog([
    ...(builtin === false ? [] : createBuiltinTools(builtin || {})),
    ...(options.tools?.extra ?? []),
  ]);
  const user = userDirOf(given.HOME, options.userDir);
  const definitions = loadDefinitions(options, projectDir, catalog.names, user);
  const claude = claudeSettings(options, projectDir, user.userDir, catalog.names);
  // The settings' env reaches the tools over the process's own; CLAUDE_PROJECT_DIR finds the project.
  const env: Readonly<Record<string, string | undefined>> = {
    ...given,
    ...claude.settings.env,
    CLAUDE_PROJECT_DIR: projectDir,
  };
  const main = definitions.all.find((d): d is MainAgentDefinition => d.surface === "main");
  const settings = resolveSettings(options, main, env, claude.settings.model);
  const helpers = claude.settings.credentialCommands ?? {};
  const model = modelOf(options, main, settings, env, { helpers, cwd: projectDir });
  const home = given.HOME ?? homedir();
  const cwd = workingFolder(options, projectDir);
  const ctx = { specs: catalog.specs, projectDir, home };
  const permissions = sessionPermissions({
    given: options.permissions ?? {},
    claude: claude.settings,
    mainApproves: listApproves(main),
    known: toolNames(catalog.names),
    ctx,
    workingDirs: [projectDir, cwd],
  });
  const hooks = sessionHooks(main, claude.settings, options, definitions.plugins);
  const elicitation = elicitDesk(hooks, options.mcp?.elicit, { cwd, env, mode: permissions.policy.mode });
  const external = createExternalTools({
    options: options.restricted ? { ...options, mcp: { ...options.mcp, mcpJson: false } } : options,
    main,
    definitions: definitions.all,
    projectDir: options.projectDir !== undefined ? projectDir : undefined,
    cwd,
    env,
    home,
    mcpJsonServers: mcpJsonFilter(claude.settings),
    plugins: definitions.plugins.filter((p) => !(options.restricted && p.owner === "project")),
    roots: [projectDir, cwd, ...claude.settings.additionalDirectories],
    elicit: elicitation.elicit,
  });
  const hop = createHopCore({
    projectDir,
    cwd,
    home,
    definitions: definitions.all,
    catalog,
    settings,
    hooks,
    denied: intersect(permissions.denied, runnerDenyList(main, claude.settings, options, ctx)),
  });
  const approval = createApprovals(permissions.policy, ctx, options.permissions?.approve);
  const off = main?.memory === false || options.projectDir === false;
  const tier = { approval, workingDirs: permissions.policy.workingDirs };
  const memory = off ? undefined : memoryOf(hop, { projectDir, cwd, home, ...user }, tier);
  return {
    ...hop,
    ...{ external, env, startEnv: given },
    fs: (builtin ? builtin.fs : undefined) ?? NODE_FS,
    pool: new PQueue({ concurrency: settings.concurrency.maxConcurrency }),
    model,
    ...(options.model?.prices && { prices: options.model.prices }),
    ...(memory && { memory }),
    system: systemPrompt(options, main, memory, hop.ceiling),
    approval,
    ...{ restricted: options.restricted === true, permissionMode: permissions.policy.mode, elicitation },
    notices: coreNotices(permissions.notices, memory?.skipped ?? [], definitions.diagnostics),
    claude: claude.settings,
    diagnostics: [...claude.diagnostics, ...definitions.diagnostics],
  };
}

/** The folder a run works in (the options' cwd, else the project's or the process's); it must exist. */
function workingFolder(options: RunnerOptions, projectDir: string): string {
  const cwd = path.resolve(
    options.cwd ?? (typeof options.projectDir === "string" ? projectDir : process.cwd()),
  );
  if (options.cwd !== undefined && !existsSync(cwd))
    throw new ConfigError(`the working folder ${cwd} does not exist`);
  return cwd;
}

/** The main agent's system prompt: its body (or the one given instead), the context, what is appended. */
function systemPrompt(
  options: RunnerOptions,
  main: MainAgentDefinition | undefined,
  memory?: Memory,
  ceiling?: PermissionList,
): string {
  const given = options.systemPrompt;
  // Without agent.md, agentmd's own prompt tells the model how to use the tools it may be offered.
  const body = main ? main.body.trim() : ceiling && defaultSystemPrompt(ceiling);
  return [given?.replace ?? body, memory?.text, given?.append].filter(Boolean).join("\n\n");
}

/**
 * The project's Claude Code settings (none when no project folder is read). A file that cannot be
 * read as settings stops the runner: going on without its rules could run what they deny.
 */
function claudeSettings(
  options: RunnerOptions,
  root: string,
  userDir: string | undefined,
  names: readonly string[],
): { settings: ClaudeSettings; diagnostics: readonly Diagnostic[] } {
  if (options.projectDir === false) return { settings: NO_SETTINGS, diagnostics: [] };
  const loaded = loadSettings(root, userDir, toolNames(names), {
    ...(options.restricted && { withhold: withholdHooks }),
    ...(options.settings && { extra: { source: "the settings given (--settings)", json: options.settings } }),
  });
  const errors = loaded.diagnostics.filter((d) => d.severity === "error");
  if (errors.length > 0)
    throw new ConfigError(
      `the settings cannot be used, and a run without their rules could do what they deny:\n${errors.map((d) => located(d, root)).join("\n")}`,
    );
  return loaded;
}

/**
 * The project's files (when a project folder is given), then the definitions given as objects, which
 * win over same-named files. A main agent that does not load is an error: running without its list
 * would run unrestricted.
 */
function loadDefinitions(
  options: RunnerOptions,
  root: string,
  toolNames: readonly string[],
  user: { userDir?: string },
) {
  const loaded =
    options.projectDir !== false
      ? loadProject(root, {
          toolNames,
          ...user,
          ...(options.pluginDirs && { pluginDirs: options.pluginDirs }),
        })
      : { definitions: [], diagnostics: [], files: [], plugins: [] };
  // Restricted: the project's definitions lose their code; the user's own (~/.claude, the plugins
  // the user enabled) keep theirs.
  const isUsers = (d: Definition) =>
    d.plugin ? d.plugin.owner === "user" : user.userDir !== undefined && isInside(d.file, user.userDir);
  const files = options.restricted
    ? loaded.definitions.map((d) => (isUsers(d) ? d : withoutProjectCode(d)))
    : loaded.definitions;
  const mainErrors = loaded.diagnostics.filter((d) => d.severity === "error" && d.surface === "main");
  if (mainErrors.length > 0 && !options.main) {
    throw new ConfigError(
      `agent.md cannot be loaded:\n${mainErrors.map((d) => located(d, root)).join("\n")}`,
    );
  }
  // A plugin whose files cannot be read would run without the guard its hooks were meant to be.
  const pluginErrors = loaded.pluginErrors ?? [];
  if (pluginErrors.length > 0)
    throw new ConfigError(
      `an enabled plugin cannot be used, and running without it could skip its guards:\n${pluginErrors.map((d) => located(d, root)).join("\n")}`,
    );
  const fromCode = definitionsFromCode(options, root, toolNames);
  const codeMain = fromCode.some((d) => d.surface === "main");
  return {
    all: [...files.filter((d) => !(codeMain && d.surface === "main")), ...fromCode],
    diagnostics: loaded.diagnostics,
    plugins: loaded.plugins,
  };
}

/**
 * What a run says once at its start: the permissions' notices, memory not given, and a project's
 * marketplace that one of the user's, of its name, shadows.
 */
const coreNotices = (
  permissions: readonly string[],
  skipped: readonly string[],
  diagnostics: readonly Diagnostic[],
) => [
  ...permissions,
  ...skipped.map((m) => `memory not given: ${m}`),
  ...diagnostics.filter((d) => d.code === "marketplace-shadowed").map((d) => `${d.file}: ${d.message}`),
];

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

/** The memory files the session's Read rules allow, read once for the runner's life. */
function memoryOf(
  hop: { readonly ceiling: PermissionList; readonly catalog: ToolCatalog },
  at: { projectDir: string; cwd: string; home: string; userDir?: string },
  tier: { approval: CallApproval; workingDirs: readonly string[] },
): Memory {
  const judged = { specs: hop.catalog.specs, cwd: at.cwd, realPath: realPathOf };
  const read = (file: string) => ({ tool: "Read", input: { file_path: file } });
  const inside = (file: string) => tier.workingDirs.some((d) => isInside(realPathOf(file), d));
  return loadMemory({
    ...at,
    mayRead: (file) => decide(hop.ceiling, read(file), judged).kind === "allowed",
    // An import outside the working folders is given as the run's own Read of it would be: unasked.
    mayImport: (file) => inside(file) || tier.approval.check(read(file), judged).kind === "allowed",
  });
}
