import { offered } from "../../permissions/permission-list.js";
import { searchDomains } from "../../permissions/search-domains.js";
import { judgesSearchDomain } from "../../permissions/subject-specs.js";
import type { PermissionList } from "../../permissions/types.js";
import { defineTool, fail } from "../define-tool.js";
import type { ServerToolDefinition, Tool } from "../types.js";

export const WEB_SEARCH = "WebSearch";

export interface WebSearchOptions {
  /** The most searches one request may make (the API's `max_uses`); absent: the API's default. */
  readonly maxUses?: number;
}

const schema = {
  type: "object",
  properties: { query: { type: "string", description: "What to search the web for." } },
  required: ["query"],
} as const;

/**
 * The web search definition a request carries under `list`, or undefined when the list does not
 * offer WebSearch or allows nothing the API's domain filter can say (see `searchDomains`). Pure:
 * this is the one place that decides whether and how web search is offered.
 */
export function webSearchDefinition(
  list: PermissionList,
  options: WebSearchOptions = {},
): ServerToolDefinition | undefined {
  if (offered(list, [WEB_SEARCH]).length === 0) return undefined;
  const domains = searchDomains(list, WEB_SEARCH);
  if (domains.kind === "none") return undefined;
  return {
    type: "web_search_20250305",
    name: "web_search",
    ...(options.maxUses !== undefined && { max_uses: options.maxUses }),
    ...(domains.kind === "allowed" && { allowed_domains: [...domains.domains] }),
    ...(domains.kind === "blocked" && { blocked_domains: [...domains.domains] }),
  };
}

/**
 * WebSearch: the Messages API's own web search, run on the API's side within a response. Listed and
 * judged like any tool (`WebSearch(domain:example.com)` limits the sites its results come from); its
 * searches come back as `server_tool_use` and `web_search_tool_result` blocks, never to `execute`.
 */
export function createWebSearchTool(options: WebSearchOptions = {}): Tool {
  return defineTool<typeof schema>({
    name: WEB_SEARCH,
    description: "Searches the web (run by the model API; results come back within the response).",
    inputSchema: schema,
    permission: judgesSearchDomain("domain"),
    concurrency: "concurrent-safe",
    interrupt: "cooperative",
    server: {
      apiName: "web_search",
      definition: (list) => webSearchDefinition(list, options),
      describe: describeResults,
    },
    async execute() {
      return fail(
        "WebSearch runs on the model API's side, within a response; it cannot be called as a local tool here.",
      );
    },
  });
}

/** `3 results: Title (host), …` or the API's error code. */
function describeResults(content: unknown): { text: string; isError: boolean } {
  if (!Array.isArray(content)) {
    const code = (content as { error_code?: unknown } | null)?.error_code;
    return { text: `search failed: ${typeof code === "string" ? code : "unknown error"}`, isError: true };
  }
  const titles = content.slice(0, 3).map((r) => {
    const { title, url } = (r ?? {}) as { title?: unknown; url?: unknown };
    let host = "";
    try {
      host = new URL(String(url)).hostname;
    } catch {
      // a result without a readable URL is shown by its title alone
    }
    return `${String(title ?? "untitled")}${host ? ` (${host})` : ""}`;
  });
  const more = content.length > 3 ? `, … ${content.length - 3} more` : "";
  return {
    text: `${content.length} result${content.length === 1 ? "" : "s"}${titles.length ? `: ${titles.join(", ")}${more}` : ""}`,
    isError: false,
  };
}
