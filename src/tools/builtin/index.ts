import type { Tool } from "../types.js";
import { createBashTool, type Spawn } from "./bash.js";
import { createBashOutputTool } from "./bash-output.js";
import { createEditTool } from "./edit.js";
import type { ToolFs } from "./fs.js";
import { createGlobTool } from "./glob.js";
import { createGrepTool } from "./grep.js";
import { createKillShellTool } from "./kill-shell.js";
import { createLsTool } from "./ls.js";
import { createMultiEditTool } from "./multi-edit.js";
import { createNotebookEditTool } from "./notebook-edit.js";
import { createReadTool } from "./read.js";
import { createTodoWriteTool } from "./todo-write.js";
import { createWebFetchTool, type WebFetchOptions } from "./web-fetch.js";
import { createWebSearchTool, type WebSearchOptions, webSearchDefinition } from "./web-search.js";
import { createWriteTool } from "./write.js";

export interface BuiltinToolDeps {
  readonly fs?: ToolFs;
  readonly spawn?: Spawn;
  readonly webFetch?: WebFetchOptions;
  readonly webSearch?: WebSearchOptions;
}

/** agentmd's file, shell, web and planning tools, with their system access injectable. */
export function createBuiltinTools(deps: BuiltinToolDeps = {}): Tool[] {
  const fs = deps.fs ? { fs: deps.fs } : {};
  return [
    createReadTool(fs),
    createWriteTool(fs),
    createEditTool(fs),
    createMultiEditTool(fs),
    createNotebookEditTool(fs),
    createLsTool(fs),
    createGlobTool(fs),
    createGrepTool(fs),
    createBashTool(deps.spawn ? { spawn: deps.spawn } : {}),
    createBashOutputTool(),
    createKillShellTool(),
    createWebFetchTool(deps.webFetch),
    createWebSearchTool(deps.webSearch),
    createTodoWriteTool(),
  ];
}

export type { BackgroundShells } from "./background-shells.js";
export { createBackgroundShells } from "./background-shells.js";
export type { ToolFs } from "./fs.js";
export type { WebSearchOptions };
export {
  createBashOutputTool,
  createBashTool,
  createEditTool,
  createGlobTool,
  createGrepTool,
  createKillShellTool,
  createLsTool,
  createMultiEditTool,
  createNotebookEditTool,
  createReadTool,
  createTodoWriteTool,
  createWebFetchTool,
  createWebSearchTool,
  createWriteTool,
  webSearchDefinition,
};
