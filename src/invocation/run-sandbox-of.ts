import type { RunState } from "../loop/execute-call.js";
import { openRunSandbox, type RunSandbox } from "../sandbox/run-sandbox.js";
import type { SandboxSetting } from "../sandbox/sandbox-setting.js";
import type { Core } from "./core.js";
import type { Workdir } from "./run-types.js";

/**
 * A run's sandbox from its setting, once bubblewrap is known to work here (probed once
 * per process), or the sentence that refuses the run.
 */
export function runSandboxOf(
  core: Core,
  setting: SandboxSetting,
  workdir?: Workdir,
): Promise<{ ok: true; sandbox: RunSandbox } | { ok: false; message: string }> {
  return openRunSandbox(setting, {
    specs: core.catalog.specs,
    // A run in a worktree has it for its project: a bare Write there makes the worktree writable.
    projectDir: workdir?.root ?? core.projectDir,
    cwd: workdir?.cwd ?? core.cwd,
    // bubblewrap is found on the PATH agentmd was started with, never one a settings file chose.
    env: core.startEnv,
  });
}

/**
 * What an inline skill's sandbox setting (its caller's joined with its own) changes in the run:
 * nothing when it is the run's already, else the sandbox the rest of the run uses.
 */
export async function sandboxAfter(
  core: Core,
  state: RunState,
  setting: SandboxSetting | undefined,
): Promise<{ ok: true; state?: { sandbox: RunSandbox } } | { ok: false; message: string }> {
  if (!setting || setting === state.sandbox?.setting) return { ok: true };
  const opened = await runSandboxOf(core, setting);
  return opened.ok ? { ok: true, state: { sandbox: opened.sandbox } } : opened;
}
