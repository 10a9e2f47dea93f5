import type { Prompt as McpPrompt } from "@modelcontextprotocol/sdk/types.js";
import { reachable } from "../mcp/mcp-hub.js";
import { mcpToolName } from "../mcp/server-spec.js";
import { userCaller } from "./callers.js";
import type { Core } from "./core.js";
import { slashNames } from "./find-invocable.js";
import { byName } from "./hop-core.js";

/** One command a user may type after `/`: the project's commands and skills, the servers' prompts. */
export interface SlashCommand {
  readonly name: string;
  readonly description: string;
  /** `<file> [focus]`: a prompt's arguments (required in angle brackets), a command's argument-hint. */
  readonly argumentHint: string;
}

/**
 * Every command a user may type, described: the project's commands and skills, then the prompts of
 * the MCP servers the session's list reaches (`/mcp__server__prompt`), which starts those servers.
 * The one listing behind `/help`, the REPL's completion, the SDK's `initialize` and ACP's commands.
 * Never rejects: a server that does not start has no prompts.
 */
export async function slashCommands(core: Core): Promise<SlashCommand[]> {
  const own = slashNames(core).map((name): SlashCommand => {
    const d = byName(core.skills, name) ?? core.commands.get(name);
    return { name, description: d?.description ?? "", argumentHint: d?.argumentHint ?? "" };
  });
  const servers = reachable(core.external.servers.project, userCaller(core).list);
  const listed = await Promise.all(
    servers.map(async (s) => {
      const started = await core.external.hub.connection(s).start();
      return started.ok ? started.listing.prompts.map((p) => promptCommand(s.name, p)) : [];
    }),
  );
  return [...own, ...listed.flat().filter((c) => !own.some((o) => o.name === c.name))];
}

/**
 * The prompts of the servers already running, by name: what completion offers without waiting (a
 * prompt a server adds later is here as soon as it says so).
 */
export function readyPromptNames(core: Core): string[] {
  const servers = reachable(core.external.servers.project, userCaller(core).list);
  return servers.flatMap((s) => {
    const status = core.external.hub.connection(s).status;
    return status.state === "ready" ? status.listing.prompts.map((p) => mcpToolName(s.name, p.name)) : [];
  });
}

function promptCommand(server: string, p: McpPrompt): SlashCommand {
  const args = (p.arguments ?? []).map((a) => (a.required ? `<${a.name}>` : `[${a.name}]`));
  return {
    name: mcpToolName(server, p.name),
    description: `${p.description ?? p.title ?? p.name} (MCP: ${server})`,
    argumentHint: args.join(" "),
  };
}
