import path from "node:path";
import { findProjectRoot } from "../definitions/discover.js";
import type { Effort, Thinking } from "../definitions/effort-thinking.js";
import type { PermissionOptions } from "../invocation/approvals.js";
import { type OpenProject, openProject, type ProjectTrust } from "../invocation/open-project.js";
import type { Runner } from "../invocation/runner.js";
import type { RunnerOptions } from "../invocation/runner-options.js";
import { ReplayFileError } from "../model/record-replay.js";
import { ConfigError } from "../shared/errors.js";
import type { CliIo } from "./io.js";
import { printable } from "./terminal/printable.js";

export interface RunnerFlags {
  readonly model?: string;
  readonly record?: string;
  readonly replay?: string;
  readonly cwd?: string;
  readonly maxIterations?: number;
  /** `--sandbox`: run commands inside the OS sandbox. */
  readonly sandbox?: boolean;
  /** `--permission-mode`, `--allowedTools`, `--disallowedTools`, and (in chat) who approves. */
  readonly permissions?: PermissionOptions;
  /** `--system-prompt`: instead of agent.md's body. */
  readonly systemPrompt?: string;
  /** `--append-system-prompt`: after everything else. */
  readonly appendSystemPrompt?: string;
  /** `--json-schema`: the main agent's answer must match it. */
  readonly outputSchema?: Readonly<Record<string, unknown>>;
  /** `--max-budget-usd`: what the session may spend. */
  readonly maxBudgetUsd?: number;
  /** `--fallback-model`: models for an overloaded request, in order. */
  readonly fallbackModels?: readonly string[];
  /** `--effort`, `--thinking` / `--max-thinking-tokens`: over agent.md's. */
  readonly effort?: Effort;
  readonly thinking?: Thinking;
  /** More runner options (the wrapper flags', the Agent SDK's), over the ones above. */
  readonly extra?: Omit<RunnerOptions, "projectDir" | "restricted">;
  /** `--plugin-dir`: plugin folders to run with. */
  readonly pluginDirs?: readonly string[];
}

/**
 * The runner for a CLI command: the project above the working folder, opened as every command
 * opens it (`openProject`: its trust checked, its custom tools too), the flags as options. Configuration a user must
 * fix (no key, a broken agent.md, an unreadable recording) is printed as one `agentmd: …` line and
 * comes back as `undefined`; a custom tool that does not load is said on stderr, and the run goes
 * on without it.
 */
export async function openRunner(
  flags: RunnerFlags,
  io: CliIo,
  trust: ProjectTrust,
): Promise<Runner | undefined> {
  const cwd = path.resolve(io.cwd, flags.cwd ?? ".");
  const project = await openTrusted(findProjectRoot(cwd, io.env.HOME), trust, io);
  if (!project) return undefined;
  printToolDiagnostics(project, cwd, io);
  try {
    return project.runner({
      cwd,
      env: io.env,
      model: {
        ...(flags.model && { id: flags.model }),
        ...(flags.record && { record: path.resolve(io.cwd, flags.record) }),
        ...(flags.replay && { replay: path.resolve(io.cwd, flags.replay) }),
        ...(flags.fallbackModels && { fallback: flags.fallbackModels }),
        ...(flags.effort && { effort: flags.effort }),
        ...(flags.thinking !== undefined && { thinking: flags.thinking }),
      },
      ...((flags.maxIterations !== undefined || flags.maxBudgetUsd !== undefined) && {
        limits: {
          ...(flags.maxIterations !== undefined && { maxIterations: flags.maxIterations }),
          ...(flags.maxBudgetUsd !== undefined && { maxBudgetUsd: flags.maxBudgetUsd }),
        },
      }),
      ...(flags.outputSchema && { outputSchema: flags.outputSchema }),
      ...(flags.sandbox && { sandbox: true }),
      ...(flags.pluginDirs && { pluginDirs: flags.pluginDirs }),
      ...(flags.permissions && { permissions: flags.permissions }),
      ...((flags.systemPrompt !== undefined || flags.appendSystemPrompt !== undefined) && {
        systemPrompt: {
          ...(flags.systemPrompt !== undefined && { replace: flags.systemPrompt }),
          ...(flags.appendSystemPrompt !== undefined && { append: flags.appendSystemPrompt }),
        },
      }),
      ...flags.extra,
    });
  } catch (e) {
    if (e instanceof ConfigError || e instanceof ReplayFileError) {
      io.stderr.write(`agentmd: ${printable(e.message)}\n`);
      return undefined;
    }
    throw e;
  }
}

/** The custom tools that did not load, one `agentmd: file: severity: …` line each. */
export function printToolDiagnostics(project: OpenProject, cwd: string, io: CliIo): void {
  for (const d of project.diagnostics)
    if (d.severity !== "info")
      io.stderr.write(`agentmd: ${path.relative(cwd, d.file)}: ${d.severity}: ${d.message} [${d.code}]\n`);
}

/**
 * The project opened with its trust checked; undefined (said on stderr) when the user trusted it
 * and the trust file cannot be written.
 */
export async function openTrusted(
  projectDir: string,
  trust: ProjectTrust,
  io: CliIo,
): Promise<OpenProject | undefined> {
  try {
    return await openProject(projectDir, trust);
  } catch (e) {
    io.stderr.write(`agentmd: the folder's trust cannot be recorded: ${printable((e as Error).message)}\n`);
    return undefined;
  }
}
