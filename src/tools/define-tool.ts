import type { FromSchema, JSONSchema } from "json-schema-to-ts";
import type { ShellParser } from "../permissions/shell/shell-parser.js";
import type { ToolPermissionSpec } from "../permissions/types.js";
import { AgentmdError } from "../shared/errors.js";
import { setOwn } from "../shared/own.js";
import type {
  Concurrency,
  InterruptBehavior,
  JsonSchemaObject,
  PrecheckContext,
  ServerTool,
  Tool,
  ToolContext,
  ToolResult,
} from "./types.js";

/** Misuse of the tool API by code (not by a model): thrown when a tool is defined. */
export class ToolDefinitionError extends AgentmdError {}

export interface ToolDefinition<S extends JSONSchema> {
  readonly name: string;
  readonly description: string;
  /** Written once; the input type of `execute` is derived from it, so the two cannot drift. */
  readonly inputSchema: S;
  readonly permission?: ToolPermissionSpec;
  readonly concurrency?: Concurrency;
  /** The concurrency of one call, when it depends on its input (see `Tool.concurrencyFor`). */
  readonly concurrencyFor?: (input: unknown, shell: ShellParser) => Concurrency;
  readonly interrupt?: InterruptBehavior;
  /** For a tool the API runs on its side (see `Tool.server`). */
  readonly server?: ServerTool;
  /** How long a call of a custom tool may take (see `Tool.timeoutMs`). */
  readonly timeoutMs?: number;
  /** Why a call cannot be made now, checked before a user is asked (see `Tool.precheck`). */
  readonly precheck?: (input: NoInfer<FromSchema<S>>, ctx: PrecheckContext) => Promise<string | undefined>;
  execute(input: NoInfer<FromSchema<S>>, ctx: ToolContext): Promise<ToolResult>;
}

/**
 * Defines a tool whose schema we own: the schema must describe an object, gets
 * `additionalProperties: false` at every object level (a typo is then an error the model sees, not
 * a silently ignored key), and `execute` is wrapped so that it never rejects.
 */
export function defineTool<const S extends JSONSchema>(def: ToolDefinition<S>): Tool {
  const schema = def.inputSchema as unknown;
  if (typeof schema !== "object" || schema === null || (schema as { type?: unknown }).type !== "object") {
    throw new ToolDefinitionError(
      `tool '${def.name}': the input schema must be a JSON Schema of type "object"`,
    );
  }
  // The gate has checked the input against the schema before `execute` runs.
  const execute = (def as { execute: unknown }).execute as (
    input: Readonly<Record<string, unknown>>,
    ctx: ToolContext,
  ) => Promise<ToolResult>;
  return {
    name: def.name,
    description: def.description,
    inputSchema: closeObjects(schema) as JsonSchemaObject,
    ...(def.permission && { permission: def.permission }),
    concurrency: def.concurrency ?? "sequential",
    ...(def.concurrencyFor && { concurrencyFor: def.concurrencyFor }),
    interrupt: def.interrupt ?? "cooperative",
    ...(def.server && { server: def.server }),
    ...(def.timeoutMs !== undefined && { timeoutMs: def.timeoutMs }),
    ...(def.precheck && {
      precheck: (def as { precheck: unknown }).precheck as NonNullable<Tool["precheck"]>,
    }),
    ownsSchema: true,
    execute: (input, ctx) => runSafely(def.name, () => execute(input, ctx)),
  };
}

/** Adds `additionalProperties: false` to every object schema that does not say otherwise. */
function closeObjects(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(closeObjects);
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    setOwn(
      out,
      k,
      k === "enum" || k === "const" || k === "default" || k === "examples" ? v : closeObjects(v),
    );
  }
  if (out.type === "object" && !("additionalProperties" in out)) out.additionalProperties = false;
  return out;
}

/**
 * Calls a tool body so that nothing escapes: a throw or a rejection becomes an error result that
 * names the tool. Contract: never rejects.
 */
export async function runSafely(name: string, body: () => Promise<ToolResult>): Promise<ToolResult> {
  try {
    const r = await body();
    if (!r || (typeof r.content !== "string" && !Array.isArray(r.content))) {
      return { content: `${name} returned no result.`, isError: true };
    }
    return r;
  } catch (e) {
    return { content: `${name} failed: ${e instanceof Error ? e.message : String(e)}`, isError: true };
  }
}

export const ok = (content: ToolResult["content"]): ToolResult => ({ content, isError: false });
export const fail = (content: string): ToolResult => ({ content, isError: true });
