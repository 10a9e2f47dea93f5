import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createReadRecord } from "../../src/tools/read-record.js";
import type { Tool, ToolContext, ToolResult } from "../../src/tools/types.js";

export interface LoggedContext extends ToolContext {
  readonly warnings: string[];
}

/** A tool context in `cwd` with a fresh read record and a logger that keeps warnings. */
export function toolContext(cwd: string, signal: AbortSignal = new AbortController().signal): LoggedContext {
  const warnings: string[] = [];
  return {
    cwd,
    signal,
    readRecord: createReadRecord(),
    logger: { debug: () => {}, warn: (m) => warnings.push(m) },
    warnings,
  };
}

export function writeFiles(root: string, files: Record<string, string | Buffer>): void {
  for (const [rel, content] of Object.entries(files)) {
    const file = path.join(root, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
}

/** The text of a result, whatever its form. */
export function text(r: ToolResult): string {
  return typeof r.content === "string"
    ? r.content
    : r.content.map((b) => (b.type === "text" ? b.text : `[image ${b.source.media_type}]`)).join("\n");
}

export function run(tool: Tool, input: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
  return tool.execute(input, ctx);
}
