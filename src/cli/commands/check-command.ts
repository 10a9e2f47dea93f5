import { existsSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { compareDiagnostics } from "../../definitions/diagnostics.js";
import { userDirOf } from "../../definitions/discover.js";
import { findProjectRoot, loadPaths, loadProject } from "../../definitions/index.js";
import { loadSettings } from "../../definitions/settings.js";
import { toolNames } from "../../definitions/tool-names.js";
import type { Definition, Diagnostic, LoadResult, Severity, Surface } from "../../definitions/types.js";
import { builtinCatalog, toolCatalog } from "../../invocation/tool-catalog.js";
import { projectServers } from "../../mcp/project-servers.js";
import { toolSearchDiagnostics } from "../../mcp/tool-search-check.js";
import { chooseProvider, PROVIDER_LABEL } from "../../model/providers/provider-choice.js";
import { missingClient } from "../../model/providers/provider-packages.js";
import { compileList, patternDiagnostics } from "../../permissions/index.js";
import { formatSandboxReport, projectSandboxReport } from "../../sandbox/describe-sandbox.js";
import { ConfigError } from "../../shared/errors.js";
import { MODEL_VARIABLES } from "../../shared/model-variables.js";
import { createBuiltinTools } from "../../tools/builtin/index.js";
import { inspectedTools } from "../../tools/custom/inspected-tools.js";
import { HELP_OPTION, type OptionTable, optionsHelp } from "../flags/option-table.js";
import { type CliIo, type Style, styleFor } from "../io.js";
import { printable } from "../terminal/render.js";
import { projectChecks } from "./project-checks.js";

export interface CheckOptions {
  readonly paths: readonly string[];
  readonly json: boolean;
  readonly strict: boolean;
}

/** `check`'s options: its parser and its help's Options lines. */
export const CHECK_OPTIONS = {
  json: { type: "boolean", default: false, help: "print a machine-readable report instead" },
  strict: { type: "boolean", default: false, help: "exit 1 on warnings too" },
  ...HELP_OPTION,
} as const satisfies OptionTable;

export const CHECK_HELP = `Usage: agentmd check [PATH…] [--json] [--strict]

Loads and validates agent definitions and prints diagnostics as compilers do:
  FILE:LINE:COL: SEVERITY: MESSAGE [code]
then one summary line with counts per surface and per severity.

With no PATH, checks the project: the nearest folder holding agent.md (or the
current folder) with its agents/, skills/, commands/ and .claude/ folders. A PATH
may be any file or folder; a folder holding agent.md is checked as a project,
any other folder is searched for definition files.

Nothing of the project runs: tools/ modules are read as text (a custom tool is
known by the name its source writes), no MCP server starts, no hook runs.

Options:
${optionsHelp(CHECK_OPTIONS, 14)}

Exit status: 0 when no errors (no warnings with --strict), 1 otherwise, 2 on bad usage.

Example:
  agentmd check --strict .claude/agents`;

/** Runs `agentmd check`; returns the exit code. */
export async function runCheck(options: CheckOptions, io: CliIo): Promise<number> {
  // A project also has its custom tools (tools/), which lists may name, and its .mcp.json. Check
  // runs none of the project's code: the tools' names are read from their source.
  const project = projectRootOf(options.paths, io.cwd, io.env.HOME);
  const custom = project
    ? inspectedTools(project, { reserved: builtinCatalog().names })
    : { tools: [], diagnostics: [] };
  const catalog = toolCatalog([...createBuiltinTools(), ...custom.tools]);
  const loaded = load(options.paths, io.cwd, catalog.names, io.env.HOME);
  const ctx = { specs: catalog.specs, home: io.env.HOME ?? homedir() };
  const patterns = loaded.definitions.flatMap((d) => patternDiagnostics(d, ctx));
  const servers = project ? projectServers(project, loaded.definitions) : undefined;
  const settings = project
    ? loadSettings(project, userDirOf(io.env.HOME).userDir, toolNames(catalog.names))
    : undefined;
  const checks = await projectChecks({
    definitions: loaded.definitions,
    ctx,
    projectDir: project ?? io.cwd,
    ...(settings && {
      denied: compileList(undefined, settings.settings.deny, { ...ctx, projectDir: project ?? io.cwd }),
      settings: settings.settings,
    }),
    ...(servers && {
      serversOf: (def: Definition) => [...servers.project, ...servers.inlineOf(def)].map((s) => s.name),
    }),
  });
  const extra = [
    ...custom.diagnostics,
    ...(settings?.diagnostics ?? []),
    ...checks,
    ...(servers ? [...servers.diagnostics, ...toolSearchDiagnostics(loaded.definitions, servers, ctx)] : []),
  ];
  const result = {
    ...loaded,
    diagnostics: [...loaded.diagnostics, ...patterns, ...extra].sort(compareDiagnostics),
  };
  const provider = providerReport({ ...io.env, ...settings?.settings.env });
  const counts = countSeverities(result.diagnostics);
  if (provider.error) counts.error++;
  if (provider.warning) counts.warning++;
  // A project that mentions the sandbox is told what its main agent's commands could do.
  const sandbox = project
    ? await projectSandboxReport(project, loaded.definitions, { ...ctx, cwd: io.cwd }, io.env)
    : undefined;
  if (options.json) {
    io.stdout.write(
      `${JSON.stringify({ ...toReport(result, io.cwd), ...(sandbox && { sandbox }) }, null, 2)}\n`,
    );
  } else {
    const style = styleFor(io.stdout, io.env);
    for (const d of result.diagnostics) io.stdout.write(`${formatDiagnostic(d, io.cwd, style)}\n`);
    for (const l of sandbox ? formatSandboxReport(sandbox) : []) io.stdout.write(`${printable(l, false)}\n`);
    if (provider.line) io.stdout.write(`${provider.line}\n`);
    io.stdout.write(`${summaryLine(result, counts)}\n`);
  }
  if (counts.error > 0) return 1;
  if (options.strict && counts.warning > 0) return 1;
  return 0;
}

/**
 * Which provider a run here would send its requests to, when it is not the Anthropic API, and the
 * variables that chose it; or the error a run would stop with (a provider missing its region).
 */
function providerReport(env: Readonly<Record<string, string | undefined>>): {
  line?: string;
  error?: true;
  warning?: true;
} {
  try {
    const choice = chooseProvider(env);
    if (choice.kind === "anthropic") return {};
    const own = { bedrock: /BEDROCK|^AWS_/, vertex: /VERTEX|^CLOUD_ML/, foundry: /FOUNDRY/ }[choice.kind];
    const set = MODEL_VARIABLES.filter(
      (v) => env[v] !== undefined && !/KEY|TOKEN/.test(v) && (own.test(v) || /_MODEL$/.test(v)),
    );
    const line = `model provider: ${PROVIDER_LABEL[choice.kind]} (set by ${set.join(", ")})`;
    const missing = missingClient(choice.kind);
    return missing ? { line: `${line}\nwarning: ${missing}`, warning: true } : { line };
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    return { line: `error: ${e.message}`, error: true };
  }
}

/** The project folder `check` looks at, when it checks a project (not loose files). */
function projectRootOf(paths: readonly string[], cwd: string, home: string | undefined): string | undefined {
  if (paths.length === 0) return findProjectRoot(cwd, home);
  const one = paths.length === 1 ? path.resolve(cwd, paths[0] as string) : undefined;
  return one && existsSync(path.join(one, "agent.md")) ? one : undefined;
}

function load(
  paths: readonly string[],
  cwd: string,
  toolNames: readonly string[],
  home: string | undefined,
): LoadResult {
  if (paths.length === 0) return loadProject(findProjectRoot(cwd, home), { toolNames, ...userDirOf(home) });
  const resolved = paths.map((p) => path.resolve(cwd, p));
  if (resolved.length === 1 && existsSync(path.join(resolved[0] as string, "agent.md"))) {
    return loadProject(resolved[0] as string, { toolNames });
  }
  return loadPaths(resolved, { toolNames });
}

export function formatDiagnostic(d: Diagnostic, cwd: string, style: Style): string {
  const colour = d.severity === "error" ? style.red : d.severity === "warning" ? style.yellow : style.cyan;
  const where = `${printable(displayPath(d.file, cwd), false)}:${d.line}:${d.column}`;
  return `${style.bold(where)}: ${colour(d.severity)}: ${printable(d.message, false)} ${style.dim(`[${d.code}]`)}`;
}

function displayPath(file: string, cwd: string): string {
  const rel = path.relative(cwd, file);
  return rel === "" ? "." : rel.startsWith("..") && path.isAbsolute(file) ? file : rel;
}

type SeverityCounts = Record<Severity, number>;

function countSeverities(diagnostics: readonly Diagnostic[]): SeverityCounts {
  const counts: SeverityCounts = { error: 0, warning: 0, info: 0 };
  for (const d of diagnostics) counts[d.severity]++;
  return counts;
}

const SURFACE_WORDS: Record<Surface, [string, string]> = {
  main: ["main agent", "main agents"],
  agent: ["subagent", "subagents"],
  skill: ["skill", "skills"],
  command: ["command", "commands"],
};

const plural = (n: number, [one, many]: [string, string]) => `${n} ${n === 1 ? one : many}`;

/**
 * `checked 12 files: 1 main agent, 3 subagents (1 failed), 5 skills, 3 commands (1 documentation);
 * 2 errors, 4 warnings, 1 info`
 */
export function summaryLine(result: LoadResult, counts: SeverityCounts): string {
  const parts: string[] = [];
  for (const surface of ["main", "agent", "skill", "command"] as const) {
    const files = result.files.filter((f) => f.surface === surface);
    if (files.length === 0) continue;
    const loaded = files.filter((f) => f.outcome === "loaded").length;
    const failed = files.filter((f) => f.outcome === "failed").length;
    const docs = files.filter((f) => f.outcome === "documentation").length;
    const shadowed = files.filter((f) => f.outcome === "shadowed").length;
    const extra = [
      failed && `${failed} failed`,
      shadowed && `${shadowed} shadowed`,
      docs && `${docs} documentation`,
    ]
      .filter(Boolean)
      .join(", ");
    parts.push(`${plural(loaded, SURFACE_WORDS[surface])}${extra ? ` (${extra})` : ""}`);
  }
  const severities = `${plural(counts.error, ["error", "errors"])}, ${plural(counts.warning, ["warning", "warnings"])}, ${counts.info} info`;
  const n = result.files.length;
  return `checked ${n} ${n === 1 ? "file" : "files"}: ${parts.length ? parts.join(", ") : "no definitions found"}; ${severities}`;
}

/** The `--json` report. Its shape is versioned; fields are only added within a version. */
export function toReport(result: LoadResult, cwd: string) {
  const counts = countSeverities(result.diagnostics);
  const bySurface: Record<
    string,
    { loaded: number; failed: number; documentation: number; shadowed: number }
  > = {};
  for (const f of result.files) {
    const s = bySurface[f.surface] ?? { loaded: 0, failed: 0, documentation: 0, shadowed: 0 };
    s[f.outcome]++;
    bySurface[f.surface] = s;
  }
  const names = new Map(result.definitions.map((d) => [d.file, d.name]));
  return {
    version: 1,
    summary: { files: result.files.length, surfaces: bySurface, severities: counts },
    files: result.files.map((f) => ({
      file: displayPath(f.file, cwd),
      surface: f.surface,
      outcome: f.outcome,
      ...(names.has(f.file) && { name: names.get(f.file) }),
    })),
    diagnostics: result.diagnostics.map((d) => ({ ...d, file: displayPath(d.file, cwd) })),
  };
}
