import { statSync } from "node:fs";
import path from "node:path";
import { createRunner, type Runner, type RunnerOptions } from "../invocation/runner.js";
import { ConfigError } from "../shared/errors.js";
import type { BatchItem } from "./batch-item.js";

/**
 * The runner of each item: one per working folder (a runner's tools run in one), all on the same
 * project, model transport and transcript store, made when first asked for. A `cwd` is taken from
 * the project folder when relative. Throws `ConfigError` for a configuration a user must fix (no API
 * key, a broken agent.md, an item's folder that does not exist).
 */
export function runnersByFolder(
  projectDir: string,
  options: Omit<RunnerOptions, "projectDir" | "cwd">,
): (item: Pick<BatchItem, "cwd">) => Runner {
  const runners = new Map<string, Runner>();
  return (item) => {
    const cwd = path.resolve(projectDir, item.cwd ?? ".");
    let runner = runners.get(cwd);
    if (!runner) {
      if (!isFolder(cwd)) throw new ConfigError(`the item's working folder ${cwd} does not exist`);
      runner = createRunner({ ...options, projectDir, cwd });
      runners.set(cwd, runner);
    }
    return runner;
  };
}

function isFolder(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
