import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { CUSTOM_TOOLS_DIR } from "../../definitions/project-inputs.js";

/**
 * What inspection (`check`, `tools`, `audit`) knows of a project's tool modules without running
 * them: importing a module runs its code, so the names are read from the source text instead.
 */

/** One tool module, read as text. */
export interface ToolModuleSource {
  /** Absolute. */
  readonly file: string;
  /** The tool names written as literals (`name: "Deploy"`), each with its 1-based line. */
  readonly names: readonly { readonly name: string; readonly line: number }[];
  /**
   * True when some tool's name cannot be known without running the module: a `defineTool` call
   * whose name is not a literal, or a module that defines no tool by `defineTool` at all.
   */
  readonly unknown: boolean;
}

export const MODULE_EXTENSIONS: ReadonlySet<string> = new Set([".js", ".mjs", ".ts"]);

/** The tool modules `loadCustomTools` would import: `tools/*.{js,mjs,ts}` (no `.d.ts`), sorted. */
export function toolModuleFiles(projectDir: string): string[] {
  const dir = path.join(projectDir, CUSTOM_TOOLS_DIR);
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isFile() && MODULE_EXTENSIONS.has(path.extname(e.name)) && !e.name.endsWith(".d.ts"))
      .map((e) => path.join(dir, e.name))
      .sort();
  } catch {
    return [];
  }
}

/** Every tool module of the project, read as text. Contract: never throws; runs nothing. */
export function readToolModules(projectDir: string): ToolModuleSource[] {
  return toolModuleFiles(projectDir).map((file) => {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      return { file, names: [], unknown: true };
    }
    return { file, ...toolNamesInSource(text) };
  });
}

const CALL = /\bdefine(?:Foreign)?Tool\s*\(/g;
/** An object a module exports as it is written: `export const read = {`, `export default {`. */
const EXPORTED_OBJECT = /\bexport\s+(?:default\s*|(?:const|let|var)\s+[A-Za-z_$][\w$]*\s*=\s*)\{/g;
const NAME_LITERAL =
  /(?:^|[{,\s])["']?name["']?\s*:\s*(?:"([A-Za-z0-9_-]{1,64})"|'([A-Za-z0-9_-]{1,64})'|`([A-Za-z0-9_-]{1,64})`)/;
const NAME_KEY = /(?:^|[{,\s])["']?name["']?\s*:/;

/**
 * The tool names a module's source writes: for each `defineTool(` (or `defineForeignTool(`) call,
 * the `name:` property literal that follows it before the next call; in a module with no such
 * call, the `name:` of each object it exports as written. Pure.
 */
export function toolNamesInSource(text: string): Omit<ToolModuleSource, "file"> {
  const calls = [...text.matchAll(CALL)];
  const found = calls.length > 0 ? calls : [...text.matchAll(EXPORTED_OBJECT)];
  const starts = found.map((m) => (m.index ?? 0) + m[0].length);
  if (starts.length === 0) return { names: [], unknown: true };
  const names: { name: string; line: number }[] = [];
  let unknown = false;
  starts.forEach((start, i) => {
    const span = text.slice(start, starts[i + 1] ?? text.length);
    const key = NAME_KEY.exec(span);
    const literal = NAME_LITERAL.exec(span);
    // The first `name:` of the call must be the literal: `name: prefix + "x"` is not known.
    if (!key || !literal || literal.index !== key.index) {
      unknown = true;
      return;
    }
    const name = (literal[1] ?? literal[2] ?? literal[3]) as string;
    const at = start + literal.index;
    names.push({ name, line: text.slice(0, at).split("\n").length + (literal[0].startsWith("\n") ? 1 : 0) });
  });
  return { names, unknown };
}

/** The sentence a report gives a module whose names cannot be read. */
export function unknownNameMessage(rel: string): string {
  return `a tool name in ${rel} is unknown without running ${rel}; inspection runs no project code, so lists naming it are judged by name only`;
}
