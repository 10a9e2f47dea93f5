import { isMcpToolName } from "../../definitions/tool-names.js";
import type { Definition } from "../../definitions/types.js";
import { canonicalToolName } from "../../permissions/index.js";

/**
 * The names a run could offer: agentmd's own and the project's tools, and (when no MCP server is
 * started to ask) the MCP tools the lists name. Any other name a list writes (a Claude Code tool
 * agentmd lacks, such as NotebookRead) is offered by no run: it is reported apart.
 */
export function toolNamesOf(
  definitions: readonly Definition[],
  builtin: readonly string[],
  /** The MCP tools the started servers listed (undefined: none was started to ask). */
  mcpListed: readonly string[] | undefined,
): { offerable: string[]; unprovided: string[] } {
  const offerable = new Set(builtin.filter((n) => canonicalToolName(n) === n));
  const unprovided = new Set<string>();
  for (const d of definitions) {
    for (const e of [...(d.allowedTools?.entries ?? []), ...(d.disallowedTools?.entries ?? [])]) {
      const name = canonicalToolName(e.name);
      if (e.name.includes("*") || offerable.has(name)) continue;
      if (isMcpToolName(name) && mcpListed === undefined) offerable.add(name);
      else if (!builtin.includes(name) && !mcpListed?.includes(name)) unprovided.add(name);
    }
  }
  return { offerable: [...offerable], unprovided: [...unprovided] };
}
