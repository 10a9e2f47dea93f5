import { type CallContext, executeCall, resultText } from "../loop/execute-call.js";
import { READ_RESOURCE } from "../mcp/mcp-resources.js";
import type { Core } from "./core.js";
import type { Expanded } from "./run-types.js";

/** The names of the servers a mention may name (any defined one: the list decides the rest). */
export const serverNames = (core: Pick<Core, "external">): ReadonlySet<string> =>
  new Set(core.external.servers.project.map((s) => s.name));

/** `@server:uri` after whitespace (`@docs:file:///guide.md`); `server` is checked against the defined servers. */
export const RESOURCE_MENTION = /(?<=^|\s)@([A-Za-z0-9_-]+):([^\s`'"<>()]+)/g;

/**
 * `@server:uri` mentions of a defined MCP server, each read through the run's own tool-call path as
 * a ReadMcpResourceTool call (so its list, hooks and events bind it exactly as the model's would:
 * a run whose list does not name the tool, or does not reach the server whole, attaches nothing and
 * says why), the contents put after the text. A mention of a name no server has stays text.
 */
export async function attachResources(
  text: string,
  label: string,
  servers: ReadonlySet<string>,
  call: CallContext,
): Promise<Expanded> {
  const read = await resourceBlocks(text, label, servers, call);
  if (!read.ok) return read;
  return { ok: true, text: read.blocks.length ? `${text.trimEnd()}\n\n${read.blocks.join("\n\n")}` : text };
}

/** The mentioned resources' contents, each in a `<resource>` block, or why one was not read. */
export async function resourceBlocks(
  text: string,
  label: string,
  servers: ReadonlySet<string>,
  call: CallContext,
): Promise<{ ok: true; blocks: string[] } | { ok: false; message: string }> {
  const mentions: { server: string; uri: string }[] = [];
  for (const m of text.matchAll(RESOURCE_MENTION)) {
    const server = m[1] as string;
    const uri = (m[2] as string).replace(/[.,;:!?]+$/, "");
    if (servers.has(server) && !mentions.some((x) => x.server === server && x.uri === uri))
      mentions.push({ server, uri });
  }
  const blocks: string[] = [];
  for (const [i, { server, uri }] of mentions.entries()) {
    const { decision, result } = await executeCall(
      { id: `resource_${i + 1}`, name: READ_RESOURCE, input: { server, uri } },
      call,
    );
    if (decision !== "allowed" || result.isError)
      return {
        ok: false,
        message: `${label}: @${server}:${uri} was not attached: ${resultText(result)}`,
      };
    blocks.push(`<resource server="${server}" uri="${uri}">\n${resultText(result)}\n</resource>`);
  }
  return { ok: true, blocks };
}
