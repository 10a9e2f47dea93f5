import { parseEntry, splitToolList } from "../../src/definitions/index.js";
import { builtinCatalog } from "../../src/invocation/tool-catalog.js";
import {
  type CompileContext,
  compileList,
  type Decision,
  decide,
  type EntryInput,
  loadShellParser,
  type PermissionList,
} from "../../src/permissions/index.js";

/** How agentmd's own tools are judged, as the tools declare it. */
export const SPECS = builtinCatalog().specs;
export const CTX: CompileContext = { specs: SPECS, projectDir: "/proj", home: "/home/u" };
export const CWD = "/proj";
/** The bash parser a run judges command lines with. */
export const SHELL = await loadShellParser();
/** What a call is judged in, as a run judges it (no file system: no real paths). */
export const JUDGED = { specs: SPECS, cwd: CWD, shell: SHELL };

/** Entries from a tool-list string, as the loader parses it. */
export function entries(text: string, file = "agent.md"): EntryInput[] {
  return splitToolList(text).map((p, i) => {
    const e = parseEntry(p.raw);
    if (!e.ok) throw new Error(`bad entry ${p.raw}: ${e.problem}`);
    return { name: e.name, pattern: e.pattern, raw: p.raw, at: { file, line: 1, column: i + 1 } };
  });
}

/** `list("Read, Bash(git:*)", "Bash(git push:*)")`; `null` allow = no allow list. */
export function list(allow: string | null, deny?: string, ctx: CompileContext = CTX): PermissionList {
  return compileList(allow === null ? undefined : entries(allow), deny ? entries(deny) : undefined, ctx);
}

/** `allowed` or `denied: <reason>`. */
export function verdict(d: Decision): string {
  return d.kind === "allowed" ? "allowed" : `denied: ${d.reason}`;
}

export function judge(l: PermissionList, tool: string, input: unknown, cwd = CWD): string {
  return verdict(decide(l, { tool, input }, { ...JUDGED, cwd }));
}

/** The input a tool's subject is read from, for one-line table cases. */
export function inputFor(tool: string, value: unknown): Record<string, unknown> {
  switch (tool) {
    case "Bash":
      return { command: value };
    case "Read":
    case "Write":
    case "Edit":
      return { file_path: value };
    case "Glob":
    case "Grep":
      return value === undefined ? { pattern: "*" } : { pattern: "*", path: value };
    case "Task":
    case "Agent":
      return { description: "d", prompt: "p", subagent_type: value };
    case "Skill":
      return { skill: value };
    case "WebFetch":
      return { url: value };
    default:
      return { value };
  }
}
