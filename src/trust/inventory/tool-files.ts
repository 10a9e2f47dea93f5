import path from "node:path";
import { CUSTOM_TOOLS_DIR } from "../../definitions/project-inputs.js";
import { walkTree } from "../../definitions/walk-tree.js";
import { customToolFiles } from "../../tools/custom/load-custom-tools.js";
import type { Follower } from "./follow.js";

/** Files beside the tool modules that a module may import, digested with them. */
const MODULE_FILES = /\.(?:[cm]?[jt]sx?|json|node|wasm)$/;
const MAX_TOOL_FILES = 2000;

export interface ToolFiles {
  /** The modules the custom-tool loader imports. */
  readonly modules: readonly string[];
  /** Every other file of code under `tools/`. */
  readonly beside: readonly string[];
}

/** The custom tool modules and the files beside them, each followed to what it imports. */
export function toolFiles(dir: string, follow: Follower): ToolFiles {
  const modules = customToolFiles(dir);
  if (modules.length === 0) return { modules: [], beside: [] };
  const beside = walkTree(path.join(dir, CUSTOM_TOOLS_DIR), { bound: dir, keep: (n) => MODULE_FILES.test(n) })
    .filter((f) => !modules.includes(f))
    .slice(0, MAX_TOOL_FILES);
  for (const m of modules) follow.add(m, "a custom tool module");
  for (const f of beside) follow.add(f, "beside the tool modules");
  return { modules, beside };
}
