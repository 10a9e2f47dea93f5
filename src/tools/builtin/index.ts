import type { Tool } from "../types.js";
import { createBashTool, type Spawn } from "./bash.js";
import { createEditTool } from "./edit.js";
import type { ToolFs } from "./fs.js";
import { createGlobTool } from "./glob.js";
import { createGrepTool } from "./grep.js";
import { createReadTool } from "./read.js";
import { createWebFetchTool, type WebFetchOptions } from "./web-fetch.js";
import { createWriteTool } from "./write.js";

export interface BuiltinToolDeps {
  readonly fs?: ToolFs;
  readonly spawn?: Spawn;
  readonly webFetch?: WebFetchOptions;
}

/** agentmd's file, shell and web tools, with their system access injectable. */
export function createBuiltinTools(deps: BuiltinToolDeps = {}): Tool[] {
  const fs = deps.fs ? { fs: deps.fs } : {};
  return [
    createReadTool(fs),
    createWriteTool(fs),
    createEditTool(fs),
    createGlobTool(fs),
    createGrepTool(fs),
    createBashTool(deps.spawn ? { spawn: deps.spawn } : {}),
    createWebFetchTool(deps.webFetch),
  ];
}

export type { ToolFs } from "./fs.js";
export {
  createBashTool,
  createEditTool,
  createGlobTool,
  createGrepTool,
  createReadTool,
  createWebFetchTool,
  createWriteTool,
};
