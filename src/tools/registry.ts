import { offered } from "../permissions/permission-list.js";
import type { PermissionList, ToolSpecs } from "../permissions/types.js";
import { AgentmdError } from "../shared/errors.js";
import { runSafely } from "./define-tool.js";
import { normaliseInput } from "./normalise-input.js";
import { type KeyMap, restoreKeys, sanitiseSchema, sanitiseToolName } from "./sanitise-schema.js";
import { prepareGate } from "./schema-gate.js";
import type { JsonSchemaObject, ServerToolDefinition, Tool, ToolContext, ToolResult } from "./types.js";

/** A tool as the API sees it: a name and schema it accepts, and how to map input back. */
export interface RegisteredTool {
  readonly tool: Tool;
  /** The name sent to the API (the tool's own name unless that breaks the API's rule). */
  readonly apiName: string;
  readonly apiSchema: Readonly<Record<string, unknown>>;
  /** How sanitised keys map back; null when none was renamed. */
  readonly keys: KeyMap | null;
}

export interface ToolRegistry {
  /** By tool name and by API name; a Map, so a model-supplied name never reaches a prototype. */
  get(name: string): RegisteredTool | undefined;
  readonly all: readonly RegisteredTool[];
  /** How each tool's calls are judged, for the permission engine. */
  readonly specs: ToolSpecs;
  /** Said once, when the registry was built: schemas that pass unvalidated, renamed tools. */
  readonly warnings: readonly string[];
}

/** A tool a request shows; a server tool with the definition it is shown as. */
export interface OfferedTool extends RegisteredTool {
  readonly server?: ServerToolDefinition;
}

/**
 * The tools a list offers, in order: those it allows some call of, minus those a bare deny
 * removes; a server tool only when its definition under the list says something (WebSearch whose
 * domains cannot be said to the API is not offered). The one place that decides what is shown.
 */
export function offeredTools(tools: readonly RegisteredTool[], list: PermissionList): OfferedTool[] {
  return tools.flatMap((r) => {
    const o = offerOf(r, list);
    return o.kind === "offered" ? [o.tool] : [];
  });
}

/**
 * The tools offered under `list` where approvals are in play: a server tool runs at the API, where
 * no one can be asked, so it is offered only under what the approvals allow unasked (never when they
 * cannot say).
 */
export function offeredUnderApproval(
  tools: readonly RegisteredTool[],
  list: PermissionList,
  approval: { unasked(list: PermissionList): PermissionList | undefined },
): OfferedTool[] {
  const unasked = approval.unasked(list);
  return tools.flatMap((r) =>
    r.tool.server && !unasked ? [] : offeredTools([r], r.tool.server && unasked ? unasked : list),
  );
}

/** Server tools the list allows but that are not offered: the API cannot be told what it allows. */
export function unsayableServerTools(tools: readonly RegisteredTool[], list: PermissionList): string[] {
  return tools.filter((r) => offerOf(r, list).kind === "unsayable").map((r) => r.tool.name);
}

function offerOf(
  r: RegisteredTool,
  list: PermissionList,
): { kind: "offered"; tool: OfferedTool } | { kind: "not-allowed" | "unsayable" } {
  if (offered(list, [r.tool.name]).length === 0) return { kind: "not-allowed" };
  if (!r.tool.server) return { kind: "offered", tool: r };
  const server = r.tool.server.definition(list);
  return server ? { kind: "offered", tool: { ...r, server } } : { kind: "unsayable" };
}

export class ToolRegistryError extends AgentmdError {}

// A tool's sanitised schema is the same every time: a run's registry of hundreds of MCP tools is
// built per run, and their schemas are sanitised once (as the gate compiles each schema once).
const sanitised = new WeakMap<Tool, ReturnType<typeof sanitiseSchema>>();

/**
 * Registers tools: our own as they are; others with their names and schema keys made to fit the
 * API, so that one bad tool never makes the API reject a request.
 */
export function createToolRegistry(tools: readonly Tool[]): ToolRegistry {
  const byName = new Map<string, RegisteredTool>();
  const apiNames = new Set<string>();
  const warnings: string[] = [];
  const specs = new Map<string, NonNullable<Tool["permission"]>>();
  const all: RegisteredTool[] = [];
  for (const tool of tools) {
    if (byName.has(tool.name)) throw new ToolRegistryError(`two tools are named '${tool.name}'`);
    const apiName = sanitiseToolName(tool.name, apiNames);
    if (apiName !== tool.name) warnings.push(`tool '${tool.name}' is sent to the API as '${apiName}'`);
    apiNames.add(apiName);
    let apiSchema: Readonly<Record<string, unknown>> = tool.apiSchema ?? tool.inputSchema;
    let keys: KeyMap | null = null;
    if (!tool.ownsSchema) {
      let s = sanitised.get(tool);
      if (!s) {
        s = sanitiseSchema(tool.inputSchema);
        sanitised.set(tool, s);
      }
      apiSchema = s.schema;
      keys = s.keys;
    }
    // Our own schemas compile (their tests say so); they are compiled at their first call. Schemas
    // from elsewhere are compiled now, so that one that cannot be is said at once.
    const problem = tool.ownsSchema ? undefined : prepareGate(tool);
    if (problem)
      warnings.push(
        `tool '${tool.name}': its input schema cannot be compiled (${problem}); its input passes unvalidated`,
      );
    const registered: RegisteredTool = { tool, apiName, apiSchema, keys };
    byName.set(tool.name, registered);
    if (apiName !== tool.name) byName.set(apiName, registered);
    if (tool.permission) specs.set(tool.name, tool.permission);
    all.push(registered);
  }
  return { get: (name) => byName.get(name), all, specs, warnings };
}

/**
 * The model's input made ready for a tool: parsed or defaulted to `{}`, copied without prototypes,
 * and with sanitised keys mapped back. An error result, naming the tool, when it cannot be.
 */
export function prepareInput(
  registered: RegisteredTool,
  raw: unknown,
): { ok: true; input: Readonly<Record<string, unknown>> } | { ok: false; result: ToolResult } {
  const n = normaliseInput(registered.tool.name, raw);
  if (!n.ok) return { ok: false, result: { content: n.message, isError: true } };
  const input = registered.keys
    ? (restoreKeys(n.input, registered.keys) as Record<string, unknown>)
    : n.input;
  return { ok: true, input };
}

/** Runs a tool as the last line of defence: whatever it does, a result comes back. */
export function executeTool(
  tool: Tool,
  input: Readonly<Record<string, unknown>>,
  ctx: ToolContext,
): Promise<ToolResult> {
  return runSafely(tool.name, () => tool.execute(input, ctx));
}

export interface ForeignToolDefinition {
  readonly name: string;
  readonly description: string;
  /** Any JSON Schema; keys the API rejects are sanitised, and input restored, automatically. */
  readonly inputSchema: unknown;
  readonly permission?: Tool["permission"];
  readonly concurrency?: Tool["concurrency"];
  readonly interrupt?: Tool["interrupt"];
  execute(input: Readonly<Record<string, unknown>>, ctx: ToolContext): Promise<ToolResult>;
}

/** A tool whose schema we do not own (an MCP server's, a user's): used as given, made safe at registration. */
export function defineForeignTool(def: ForeignToolDefinition): Tool {
  const schema = (
    typeof def.inputSchema === "object" && def.inputSchema !== null ? def.inputSchema : { type: "object" }
  ) as JsonSchemaObject;
  return {
    name: def.name,
    description: def.description,
    inputSchema: schema,
    ...(def.permission && { permission: def.permission }),
    concurrency: def.concurrency ?? "sequential",
    interrupt: def.interrupt ?? "not-interruptible",
    ownsSchema: false,
    execute: (input, ctx) => runSafely(def.name, () => def.execute(input, ctx)),
  };
}
