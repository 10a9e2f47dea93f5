import path from "node:path";
import { findProjectRoot } from "../definitions/discover.js";
import { createRunner, type Runner } from "../invocation/runner.js";
import { ReplayFileError } from "../model/record-replay.js";
import { ConfigError } from "../shared/errors.js";
import type { CliIo } from "./io.js";
import { printable } from "./render.js";

export interface RunnerFlags {
  readonly model?: string;
  readonly record?: string;
  readonly replay?: string;
  readonly cwd?: string;
  readonly maxIterations?: number;
}

/**
 * The runner for a CLI command: the project above the working folder, the flags as options.
 * Configuration a user must fix (no key, a broken agent.md, an unreadable recording) is printed
 * as one `agentmd: …` line and comes back as `undefined`.
 */
export function openRunner(flags: RunnerFlags, io: CliIo): Runner | undefined {
  const cwd = path.resolve(io.cwd, flags.cwd ?? ".");
  try {
    return createRunner({
      projectDir: findProjectRoot(cwd, io.env.HOME),
      cwd,
      env: io.env,
      model: {
        ...(flags.model && { id: flags.model }),
        ...(flags.record && { record: path.resolve(io.cwd, flags.record) }),
        ...(flags.replay && { replay: path.resolve(io.cwd, flags.replay) }),
      },
      ...(flags.maxIterations !== undefined && { limits: { maxIterations: flags.maxIterations } }),
    });
  } catch (e) {
    if (e instanceof ConfigError || e instanceof ReplayFileError) {
      io.stderr.write(`agentmd: ${printable(e.message)}\n`);
      return undefined;
    }
    throw e;
  }
}
