import path from "node:path";
import type { Diagnostic } from "../definitions/types.js";
import { loadCustomTools } from "../tools/custom/load-custom-tools.js";
import type { Tool } from "../tools/types.js";
import { type TrustState, trustState } from "../trust/trust-state.js";
import { recordTrust } from "../trust/trust-store.js";
import { createRunner, type Runner } from "./runner.js";
import type { RunnerOptions } from "./runner-options.js";
import { builtinCatalog } from "./tool-catalog.js";

/**
 * A project opened for runs: its custom tools imported once (when its code is trusted), and
 * runners on it made from the one list of its inputs (see `projectInputs`): agent.md, agents/,
 * skills/, commands/, `tools/`, the settings, `.mcp.json`, the memory files and the user's own
 * definitions.
 */
export interface OpenProject {
  readonly projectDir: string;
  /** The project's custom tools (none when it runs restricted). */
  readonly tools: readonly Tool[];
  /** What of `tools/` did not load (the other tools are offered). */
  readonly diagnostics: readonly Diagnostic[];
  /** The folder's code runs (`false`), or the folder runs restricted (see `RunnerOptions.restricted`). */
  readonly restricted: boolean;
  /** The folder's code and its trust, as found when it was opened. */
  readonly trust: TrustState;
  /**
   * A runner on the project, its tools running in `options.cwd` (default: the project folder).
   * Throws `ConfigError` for a configuration a user must fix (no API key, a broken agent.md).
   * Whatever its runs start stops with its `close()`.
   */
  runner(options?: Omit<RunnerOptions, "projectDir" | "restricted" | "inventory">): Runner;
}

/** How a project's folder is trusted (docs/trust.md). */
export interface ProjectTrust {
  /** The home folder of the environment agentmd was started with: its `~/.agentmd/trust.json`. */
  readonly home: string;
  /**
   * Asked only when the folder holds code that is not trusted (never trusted, or changed since):
   * `trust` records the code as trusted and runs it, `restricted` runs the folder without it.
   */
  readonly onUntrusted: (
    state: Extract<TrustState, { kind: "untrusted" }>,
  ) => "trust" | "restricted" | Promise<"trust" | "restricted">;
}

/**
 * Opens the project at `projectDir` for `run`, chat, `batch`, `worker` and `audit`: the one way
 * these get a runner (or, for audit, the tools a runner would have). Here the folder's trust is
 * checked, so that no entry point runs a folder's code that its user has not trusted: a folder
 * whose code is not trusted is opened restricted unless `onUntrusted` trusts it. Importing
 * `tools/*` runs their code, which is why it happens only for a trusted folder, as a step the
 * caller takes. Contract: rejects only when trusting was chosen and the trust file cannot be
 * written; a tool module that does not load is a diagnostic.
 */
export async function openProject(projectDir: string, trust: ProjectTrust): Promise<OpenProject> {
  const root = path.resolve(projectDir);
  const state = trustState(root, trust.home);
  let restricted = false;
  if (state.kind === "untrusted") {
    restricted = (await trust.onUntrusted(state)) === "restricted";
    if (!restricted) recordTrust(trust.home, state.code);
  }
  const custom = restricted
    ? { tools: [], diagnostics: [] }
    : await loadCustomTools(root, { reserved: builtinCatalog().names });
  return {
    projectDir: root,
    tools: custom.tools,
    diagnostics: custom.diagnostics,
    restricted,
    trust: state,
    runner: (options = {}) => {
      const extra = [...custom.tools, ...(options.tools?.extra ?? [])];
      return createRunner({
        ...options,
        projectDir: root,
        inventory: state.code,
        ...(restricted && { restricted: true }),
        ...(extra.length > 0 && { tools: { ...options.tools, extra } }),
      });
    },
  };
}
