export * from "./builtin/index.js";
export { defineTool, fail, ok, runSafely, ToolDefinitionError } from "./define-tool.js";
export { normaliseInput } from "./normalise-input.js";
export { createReadRecord } from "./read-record.js";
export {
  createToolRegistry,
  defineForeignTool,
  executeTool,
  type ForeignToolDefinition,
  type OfferedTool,
  offeredTools,
  prepareInput,
  type RegisteredTool,
  type ToolRegistry,
  ToolRegistryError,
} from "./registry.js";
export {
  type KeyMap,
  restoreKeys,
  sanitiseKey,
  sanitiseSchema,
  sanitiseToolName,
} from "./sanitise-schema.js";
export { checkInput, describeErrors, type GateResult, gateValidator, prepareGate } from "./schema-gate.js";
export type * from "./types.js";
