import path from "node:path";
import type { Diagnostic } from "../../definitions/types.js";
import { fail } from "../define-tool.js";
import type { Tool } from "../types.js";
import { readToolModules, type ToolModuleSource, unknownNameMessage } from "./read-tool-names.js";

/** A project's custom tools as inspection knows them: by the names their source writes. */
export interface InspectedTools {
  /** One stand-in a name read: it is judged by name (its own permission spec is code, not read). */
  readonly tools: readonly Tool[];
  readonly modules: readonly ToolModuleSource[];
  /** A module whose names are unknown, a clash with a built-in or between modules. */
  readonly diagnostics: readonly Diagnostic[];
}

const RUN_TOOLS = ["Task", "Agent", "Skill", "ToolSearch"];

/**
 * The project's custom tools for `check`, `tools` and `audit`, read from `tools/*` as text:
 * inspection imports no module (importing runs it), so a name is known only when the source writes
 * it as a literal, and a module whose names cannot be read is said. The stand-ins never run: their
 * `execute` answers that the module was not run. Contract: never throws.
 */
export function inspectedTools(
  projectDir: string,
  options: { readonly reserved?: readonly string[] } = {},
): InspectedTools {
  const modules = readToolModules(projectDir);
  const reserved = new Set([...(options.reserved ?? []), ...RUN_TOOLS]);
  const owner = new Map<string, string>();
  const tools: Tool[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const m of modules) {
    const rel = path.relative(projectDir, m.file);
    const report = (line: number, code: string, severity: Diagnostic["severity"], message: string) =>
      diagnostics.push({ file: m.file, line, column: 1, severity, code, message });
    if (m.unknown) report(1, "custom-tool-name-unknown", "info", unknownNameMessage(rel));
    for (const { name, line } of m.names) {
      const problem = nameProblem(name, reserved, owner.get(name));
      if (problem) report(line, "custom-tool-name", "error", problem);
      else {
        owner.set(name, rel);
        tools.push(standIn(name, rel));
      }
    }
  }
  return { tools, modules, diagnostics };
}

function nameProblem(name: string, reserved: ReadonlySet<string>, earlier: string | undefined) {
  if (name.startsWith("mcp__")) return `tool '${name}': names starting with 'mcp__' belong to MCP servers`;
  if (reserved.has(name)) return `tool '${name}' clashes with the built-in tool of that name; rename it`;
  if (earlier) return `tool '${name}' is also defined in ${earlier}; names must be unique`;
  return undefined;
}

/** A tool named as the module names it, which does nothing (inspection runs no project code). */
function standIn(name: string, rel: string): Tool {
  return {
    name,
    description: `A custom tool of ${rel} (not run: read from its source).`,
    inputSchema: { type: "object" },
    concurrency: "sequential",
    interrupt: "cooperative",
    ownsSchema: true,
    execute: async () => fail(`${name} is defined in ${rel}, which inspection does not run.`),
  };
}
