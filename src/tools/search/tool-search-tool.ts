import { defineTool, ok } from "../define-tool.js";
import type { RegisteredTool } from "../registry.js";
import type { Tool } from "../types.js";
import { searchTools } from "./search-tools.js";

export const TOOL_SEARCH = "ToolSearch";

const DESCRIPTION = `Finds tools whose definitions were not sent to you, because there are many of them. The tools it finds become callable from your next turn.

Query forms:
- "select:mcp__server__tool_a,tool_b" loads those tools by name;
- keywords, e.g. "github issue", finds the tools whose names or descriptions hold them (best first);
- "+slack send" requires "slack" in every result.

Deferred tools you can search:
`;

export interface ToolSearchHooks {
  /** The deferred tools the run may use now (its current list), revealed or not. */
  candidates(): readonly RegisteredTool[];
  /** Makes these tools' definitions part of the next request. */
  reveal(names: readonly string[]): void;
}

/**
 * The ToolSearch tool of one run. It searches only deferred tools the run's list allows, so it can
 * never make a tool callable that the list does not offer; a found tool is sent from the next turn.
 */
export function createToolSearchTool(hooks: ToolSearchHooks, listing: readonly string[]): Tool {
  return defineTool({
    name: TOOL_SEARCH,
    description: `${DESCRIPTION}${listing.join("\n")}`,
    inputSchema: {
      type: "object",
      properties: {
        query: { type: "string", description: 'Keywords, or "select:name1,name2".' },
        max_results: { type: "integer", description: "At most this many tools (default 5)." },
      },
      required: ["query"],
    } as const,
    concurrency: "sequential",
    interrupt: "cooperative",
    execute: async ({ query, max_results }) => {
      const max = Math.max(1, Math.min(50, max_results ?? 5));
      const found = searchTools(query, hooks.candidates(), max);
      if (found.length === 0)
        return ok(
          `No deferred tool matches '${query}'. Try other words, or "select:" with a name from the list.`,
        );
      hooks.reveal(found.map((r) => r.tool.name));
      const defs = found.map((r) =>
        JSON.stringify({ name: r.apiName, description: r.tool.description, input_schema: r.apiSchema }),
      );
      return ok(
        `Found ${found.length} tool${found.length === 1 ? "" : "s"}; ${found.length === 1 ? "it is" : "they are"} callable from your next turn:\n${defs.join("\n")}`,
      );
    },
  });
}
