import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { CUSTOM_TOOLS_DIR } from "../../definitions/project-inputs.js";
import type { Diagnostic } from "../../definitions/types.js";
import type { Tool } from "../types.js";
import { withTimeLimit } from "./time-limit.js";

export interface CustomTools {
  readonly tools: readonly Tool[];
  readonly diagnostics: readonly Diagnostic[];
}

export { CUSTOM_TOOLS_DIR } from "../../definitions/project-inputs.js";

const EXTENSIONS = new Set([".js", ".mjs", ".ts"]);
const NAME = /^[A-Za-z0-9_-]{1,64}$/;
/** Names a custom tool cannot take: the tools a run makes itself, and MCP's namespace. */
const RUN_TOOLS = ["Task", "Agent", "Skill", "ToolSearch"];

/**
 * The project's own tools: every `tools/*.{js,mjs,ts}` at the project root, imported (a `.ts` file
 * without a build step, through jiti), each exporting `defineTool(...)` results (as named exports,
 * the default export, or a list). A tool is named as written and judged like any other; a module
 * that fails to import, a name that clashes with a built-in (`reserved`) or another custom tool,
 * and a module that exports no tool are diagnostics, and the other tools still load. Importing runs
 * the module's code: that is why this is a step a caller takes, never one done on import.
 * Contract: never rejects.
 */
export async function loadCustomTools(
  projectDir: string,
  options: { readonly reserved?: readonly string[] } = {},
): Promise<CustomTools> {
  const files = customToolFiles(projectDir);
  if (files.length === 0) return { tools: [], diagnostics: [] };
  // Loaded only for a project that has tool modules: jiti is a large dependency to start with.
  const { createJiti } = await import("jiti");
  const jiti = createJiti(import.meta.url, {
    // `import { defineTool } from "agentmd-cli"` (or "agentmd") means this agentmd, installed in
    // the project or not.
    alias: { "agentmd-cli": selfEntry(), agentmd: selfEntry() },
    moduleCache: false,
    fsCache: false,
  });
  const tools: Tool[] = [];
  const diagnostics: Diagnostic[] = [];
  const reserved = new Set([...(options.reserved ?? []), ...RUN_TOOLS]);
  const owner = new Map<string, string>();
  for (const file of files) {
    const report = (severity: Diagnostic["severity"], code: string, message: string) =>
      diagnostics.push({ file, line: 1, column: 1, severity, code, message });
    let mod: unknown;
    try {
      mod = await jiti.import(file);
    } catch (e) {
      report("error", "custom-tool-import", `this tool module cannot be imported: ${firstLine(e)}`);
      continue;
    }
    const found = toolsIn(mod);
    if (found.length === 0) {
      report("warning", "custom-tool-none", "exports no tool (export the result of defineTool(...))");
      continue;
    }
    for (const tool of found) {
      const problem = nameProblem(tool.name, reserved, owner);
      if (problem) {
        report("error", "custom-tool-name", problem);
        continue;
      }
      owner.set(tool.name, path.relative(projectDir, file));
      tools.push(withTimeLimit(tool));
    }
  }
  return { tools, diagnostics };
}

/**
 * The modules `loadCustomTools` imports, found without importing them: `tools/*.{js,mjs,ts}` at
 * the project root (not `.d.ts`), sorted. Contract: never throws; no folder is no modules.
 */
export function customToolFiles(projectDir: string): string[] {
  const dir = path.join(projectDir, CUSTOM_TOOLS_DIR);
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isFile() && EXTENSIONS.has(path.extname(e.name)) && !e.name.endsWith(".d.ts"))
      .map((e) => path.join(dir, e.name))
      .sort();
  } catch {
    return [];
  }
}

function nameProblem(name: string, reserved: ReadonlySet<string>, owner: ReadonlyMap<string, string>) {
  if (!NAME.test(name)) return `tool '${name}': a name is 1 to 64 letters, digits, '_' and '-'`;
  if (name.startsWith("mcp__")) return `tool '${name}': names starting with 'mcp__' belong to MCP servers`;
  if (reserved.has(name)) return `tool '${name}' clashes with the built-in tool of that name; rename it`;
  const earlier = owner.get(name);
  if (earlier) return `tool '${name}' is also defined in ${earlier}; names must be unique`;
  return undefined;
}

/** The tools a module exports: named exports and the default, each a tool or a list of tools. */
function toolsIn(mod: unknown): Tool[] {
  if (typeof mod !== "object" || mod === null) return isTool(mod) ? [mod] : [];
  const out: Tool[] = [];
  const seen = new Set<Tool>();
  for (const value of Object.values(mod)) {
    for (const v of Array.isArray(value) ? value : [value]) {
      if (isTool(v) && !seen.has(v)) {
        seen.add(v);
        out.push(v);
      }
    }
  }
  return out;
}

/** A tool as `defineTool` and `defineForeignTool` make it. */
export function isTool(v: unknown): v is Tool {
  if (typeof v !== "object" || v === null) return false;
  const t = v as Record<string, unknown>;
  return (
    typeof t.name === "string" &&
    typeof t.description === "string" &&
    typeof t.inputSchema === "object" &&
    t.inputSchema !== null &&
    typeof t.execute === "function" &&
    typeof t.ownsSchema === "boolean" &&
    (t.concurrency === "sequential" || t.concurrency === "concurrent-safe") &&
    (t.interrupt === "cooperative" ||
      t.interrupt === "terminates-process" ||
      t.interrupt === "not-interruptible")
  );
}

/**
 * This package's entry point: the bundled library beside the CLI's bundle (their chunks shared),
 * `dist/index.js` built beside this file, or beside `src/` when run from source.
 */
function selfEntry(): string {
  const candidates = [
    "./index.mjs",
    "../../index.js",
    "../index.js",
    "../../../dist/index.js",
    "../../index.ts",
  ];
  const paths = candidates.map((c) => fileURLToPath(new URL(c, import.meta.url)));
  return paths.find((p) => existsSync(p)) ?? (paths[0] as string);
}

const firstLine = (e: unknown) => (e instanceof Error ? e.message : String(e)).split("\n")[0] ?? "";
