import type { Prompt as McpPrompt, Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";

/** What a server offers, as listed when it started. */
export interface ServerListing {
  readonly tools: readonly McpTool[];
  readonly prompts: readonly McpPrompt[];
}
