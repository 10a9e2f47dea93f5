export {
  classify,
  type Discovered,
  discoverPaths,
  discoverProject,
  findProjectRoot,
  userClaudeDir,
  userDirOf,
} from "./discover.js";
export { type DefinitionInput, definitionFromObject, type FromObjectResult } from "./from-object.js";
export { loadPaths, loadProject } from "./load.js";
export { loadDefinitionFile } from "./load-definition.js";
export { parseEntry, splitToolList } from "./parse-tool-list.js";
export { FOREIGN_TOOL_NAMES, type ToolNames, toolNames } from "./tool-names.js";
export type * from "./types.js";
