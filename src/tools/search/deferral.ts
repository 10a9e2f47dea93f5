import { DEFAULT_CONTEXT_WINDOW, DEFAULT_TOOL_SEARCH_PERCENT } from "../../shared/defaults.js";
import type { RegisteredTool } from "../registry.js";

/**
 * When tool definitions stay out of the request until ToolSearch finds them. `auto` defers when the
 * deferrable tools' definitions would take more than `percent` of the model's context window;
 * `always` defers every deferrable tool; `never` none (a server's `defer: true` included).
 */
export type ToolSearchSetting =
  | { readonly mode: "auto"; readonly percent: number }
  | { readonly mode: "always" }
  | { readonly mode: "never" };

export const DEFAULT_TOOL_SEARCH: ToolSearchSetting = { mode: "auto", percent: DEFAULT_TOOL_SEARCH_PERCENT };

/** `auto`, `auto:N`, true, false (agent.md `toolSearch`, or the runner option); undefined keeps the default. */
export function parseToolSearch(value: string | boolean | undefined): ToolSearchSetting {
  if (value === undefined || value === "auto") return DEFAULT_TOOL_SEARCH;
  if (value === true) return { mode: "always" };
  if (value === false) return { mode: "never" };
  const m = /^auto:(\d{1,2})$/.exec(value);
  return m ? { mode: "auto", percent: Number(m[1]) } : DEFAULT_TOOL_SEARCH;
}

/** A definition's size in tokens, estimated as the API counts JSON: about 4 characters a token. */
export function definitionTokens(r: RegisteredTool): number {
  return Math.ceil((r.apiName.length + r.tool.description.length + JSON.stringify(r.apiSchema).length) / 4);
}

/**
 * The names to defer, among the tools a run offers. `deferrable` are those that may be (MCP tools);
 * `forced` those a server asked to defer. Pure.
 */
export function deferredNames(
  offered: readonly RegisteredTool[],
  deferrable: ReadonlySet<string>,
  forced: ReadonlySet<string>,
  setting: ToolSearchSetting,
): Set<string> {
  if (setting.mode === "never") return new Set();
  const candidates = offered.filter((r) => deferrable.has(r.tool.name));
  if (setting.mode === "always") return new Set(candidates.map((r) => r.tool.name));
  const tokens = candidates.reduce((n, r) => n + definitionTokens(r), 0);
  if (tokens > (DEFAULT_CONTEXT_WINDOW * setting.percent) / 100)
    return new Set(candidates.map((r) => r.tool.name));
  return new Set(candidates.filter((r) => forced.has(r.tool.name)).map((r) => r.tool.name));
}
