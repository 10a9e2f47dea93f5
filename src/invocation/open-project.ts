import path from "node:path";
import type { Diagnostic } from "../definitions/types.js";
import { loadCustomTools } from "../tools/custom/load-custom-tools.js";
import type { Tool } from "../tools/types.js";
import { createRunner, type Runner } from "./runner.js";
import type { RunnerOptions } from "./runner-options.js";
import { builtinCatalog } from "./tool-catalog.js";

/**
 * A project opened for runs: its custom tools imported once, and runners on it made from the one
 * list of its inputs (see `projectInputs`): agent.md, agents/, skills/, commands/, `tools/`, the
 * settings, `.mcp.json`, the memory files and the user's own definitions.
 */
export interface OpenProject {
  readonly projectDir: string;
  /** The project's custom tools (for a report that lists tools without running anything). */
  readonly tools: readonly Tool[];
  /** What of `tools/` did not load (the other tools are offered). */
  readonly diagnostics: readonly Diagnostic[];
  /**
   * A runner on the project, its tools running in `options.cwd` (default: the project folder).
   * Throws `ConfigError` for a configuration a user must fix (no API key, a broken agent.md).
   * Whatever its runs start stops with its `close()`.
   */
  runner(options?: Omit<RunnerOptions, "projectDir">): Runner;
}

/**
 * Opens the project at `projectDir` for `run`, chat, `batch`, `worker` and `audit`: the one way
 * these get a runner (or, for audit, the tools a runner would have), so that none of them runs without the project's custom tools. Importing `tools/*` runs
 * their code, which is why this is a step the caller takes. Contract: never rejects; a tool
 * module that does not load is a diagnostic.
 */
export async function openProject(projectDir: string): Promise<OpenProject> {
  const root = path.resolve(projectDir);
  const custom = await loadCustomTools(root, { reserved: builtinCatalog().names });
  return {
    projectDir: root,
    tools: custom.tools,
    diagnostics: custom.diagnostics,
    runner: (options = {}) => {
      const extra = [...custom.tools, ...(options.tools?.extra ?? [])];
      return createRunner({
        ...options,
        projectDir: root,
        ...(extra.length > 0 && { tools: { ...options.tools, extra } }),
      });
    },
  };
}
