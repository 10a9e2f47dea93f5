import { collectOutput } from "../../shared/collect-output.js";
import {
  type ProcessOptions,
  type ProcessResult,
  runProcess,
  type SpawnProcess,
} from "../../shared/run-process.js";

export type Spawn = SpawnProcess;

export interface ShellOptions {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Absent: no time limit (a background command runs until it is killed). */
  readonly timeoutMs?: number;
  readonly signal: AbortSignal;
  /** Where the output goes, read while the command runs (a background command's); default: a new one. */
  readonly output?: ProcessOptions["stdout"];
  readonly maxChars: number;
  readonly spawn?: Spawn;
  /** Each piece of output as it comes (for a progress display). */
  readonly onOutput?: (text: string) => void;
}

/**
 * Runs `bash -c command` through the process runner, stdout and stderr into one collector in the
 * order they came (`result.stdout`, the same as `result.stderr`). Contract: never rejects.
 */
export function runShell(command: string, o: ShellOptions): Promise<ProcessResult> {
  const { output, ...rest } = o;
  const both = output ?? collectOutput(o.maxChars);
  return runProcess("bash", ["-c", command], { ...rest, stdout: both, stderr: both });
}

export { killLiveProcessGroups } from "../../shared/run-process.js";
export { collectOutput };
