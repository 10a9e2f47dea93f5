import { realpathSync, statSync } from "node:fs";
import path from "node:path";
import type { OpenProject } from "../invocation/open-project.js";
import type { Runner, RunnerOptions } from "../invocation/runner.js";
import { ConfigError } from "../shared/errors.js";
import { isInside } from "../shared/is-inside.js";
import type { BatchItem } from "./batch-item.js";

export interface RunnersByFolder {
  /**
   * The runner of an item, made when first asked for. Throws `ConfigError` for a configuration a
   * user must fix (no API key, a broken agent.md) and for an item's folder that does not exist or
   * lies outside the project.
   */
  readonly runnerFor: (item: Pick<BatchItem, "cwd">) => Runner;
  /** Closes every runner made (their MCP servers stop). Contract: idempotent, never rejects. */
  readonly close: () => Promise<void>;
}

/**
 * The runners of a batch's items: one per working folder (a runner's tools run in one), all on the
 * same opened project, model transport and transcript store. A `cwd` is taken from the project
 * folder when relative, and must stay inside it, by its path and by where its links lead: a job
 * from the queue is data from the network, and `../home` would run the project's agents on a
 * folder nobody gave them.
 */
export function runnersByFolder(
  project: OpenProject,
  options: Omit<RunnerOptions, "projectDir" | "cwd">,
): RunnersByFolder {
  const runners = new Map<string, Runner>();
  const root = project.projectDir;
  return {
    runnerFor: (item) => {
      const cwd = path.resolve(root, item.cwd ?? ".");
      let runner = runners.get(cwd);
      if (!runner) {
        const problem = folderProblem(cwd, root);
        if (problem) throw new ConfigError(`the item's working folder ${cwd} ${problem}`);
        runner = project.runner({ ...options, cwd });
        runners.set(cwd, runner);
      }
      return runner;
    },
    close: async () => {
      await Promise.all([...runners.values()].map((r) => r.close()));
    },
  };
}

function folderProblem(cwd: string, root: string): string | undefined {
  if (!isInside(cwd, root)) return `is outside the project ${root}; a job runs inside its project`;
  let real: string;
  try {
    real = realpathSync.native(cwd);
    if (!statSync(real).isDirectory()) return "is not a folder";
  } catch {
    return "does not exist";
  }
  if (!isInside(real, realOrSelf(root)))
    return `leads outside the project ${root} (to ${real}); a job runs inside its project`;
  return undefined;
}

function realOrSelf(p: string): string {
  try {
    return realpathSync.native(p);
  } catch {
    return p;
  }
}
