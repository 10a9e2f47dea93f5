import type { GetPromptResult } from "@modelcontextprotocol/sdk/types.js";
import { mcpToolName, serverPrefix } from "../mcp/server-spec.js";
import { mayOfferPrefix } from "../permissions/prefix-reach.js";
import type { PermissionList } from "../permissions/types.js";
import { splitArgs } from "./arguments.js";
import type { Core } from "./core.js";

const PROMPT_NAME = /^mcp__([A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*)__(.+)$/;

/** Whether `/name` names an MCP prompt (`mcp__server__prompt`) rather than a command or skill. */
export const isMcpPromptName = (name: string) => PROMPT_NAME.test(name);

/**
 * `/mcp__server__prompt args`: the prompt's messages from its server, as the text of the user's
 * turn. Positional arguments fill the prompt's declared arguments in order (the last takes the rest).
 * The server must be one the caller's list could offer a tool of: a prompt never starts a server a
 * run could not start. Contract: never rejects.
 */
export async function mcpPrompt(
  core: Core,
  list: PermissionList,
  name: string,
  args: string,
): Promise<{ ok: true; content: string } | { ok: false; message: string }> {
  const m = PROMPT_NAME.exec(name);
  const spec = m ? core.external.servers.project.findLast((s) => s.name === m[1]) : undefined;
  if (!m || !spec) return { ok: false, message: `no MCP server defines the prompt /${name}` };
  if (!mayOfferPrefix(list, serverPrefix(spec.name)))
    return {
      ok: false,
      message: `/${name} is not allowed: this run's list allows no tool of the MCP server '${spec.name}'`,
    };
  const connection = core.external.hub.connection(spec);
  const started = await connection.start();
  if (!started.ok) return { ok: false, message: started.message };
  const prompt = started.listing.prompts.find((p) => mcpToolName(spec.name, p.name) === name);
  if (!prompt) {
    const known = started.listing.prompts.map((p) => `/${mcpToolName(spec.name, p.name)}`);
    return {
      ok: false,
      message: `the MCP server '${spec.name}' has no prompt named like /${name} (it has: ${known.join(", ") || "none"})`,
    };
  }
  const declared = prompt.arguments ?? [];
  const words = splitArgs(args);
  const values: Record<string, string> = {};
  declared.forEach((a, i) => {
    const v = i === declared.length - 1 ? words.slice(i).join(" ") : words[i];
    if (v !== undefined && v !== "") values[a.name] = v;
  });
  const missing = declared.filter((a) => a.required && values[a.name] === undefined).map((a) => a.name);
  if (missing.length > 0)
    return {
      ok: false,
      message: `/${name} needs ${missing.join(", ")} (arguments: ${declared.map((a) => a.name).join(" ")})`,
    };
  const got = await connection.getPrompt(prompt.name, values);
  return got.ok ? { ok: true, content: promptText(got.result) } : { ok: false, message: got.message };
}

/** A prompt's messages as one text: each message's text, assistant turns marked as such. */
function promptText(r: GetPromptResult): string {
  return r.messages
    .map((msg) => {
      const c = msg.content;
      const text =
        c.type === "text"
          ? c.text
          : c.type === "resource" && "text" in c.resource && typeof c.resource.text === "string"
            ? c.resource.text
            : `[${c.type} content]`;
      return msg.role === "assistant" ? `(assistant) ${text}` : text;
    })
    .join("\n\n");
}
