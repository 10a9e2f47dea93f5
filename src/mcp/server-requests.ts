import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { DECLINED, type Elicit, type ElicitationAnswer } from "./elicitation.js";
import type { McpSdk } from "./mcp-sdk.js";

/** What agentmd tells a server it can do besides calling it: roots, and form elicitation. */
export const CLIENT_CAPABILITIES = { roots: { listChanged: false }, elicitation: { form: {} } } as const;

export interface ClientHandlers {
  /** The run's working folders (the project and every added folder): `roots/list`'s whole answer. */
  readonly roots: readonly string[];
  /** Who answers the server's questions; absent: nobody can, each is declined. */
  readonly elicit?: Elicit;
  /** The server's prompts changed (`notifications/prompts/list_changed`). */
  readonly promptsChanged: () => void;
}

/** Answers a server's requests (`roots/list`, `elicitation/create`) and hears its list changes. */
export function installHandlers(client: Client, sdk: McpSdk, server: string, h: ClientHandlers): void {
  client.setRequestHandler(sdk.ListRootsRequestSchema, () => ({ roots: rootsOf(h.roots) }));
  client.setRequestHandler(sdk.ElicitRequestSchema, async (request, extra): Promise<ElicitResult> => {
    const p = request.params;
    // URL mode is not declared; a server that asks it anyway is declined.
    if (!h.elicit || p.mode === "url" || !("requestedSchema" in p)) return toResult(DECLINED);
    const answer = await h
      .elicit(
        { server, message: p.message, requestedSchema: p.requestedSchema as Record<string, unknown> },
        extra.signal,
      )
      .catch((): ElicitationAnswer => ({ action: "cancel" }));
    return toResult(answer);
  });
  client.setNotificationHandler(sdk.PromptListChangedNotificationSchema, () => h.promptsChanged());
  // Resources are listed afresh by each ListMcpResourcesTool call and each `@server:uri`: nothing
  // is kept that the change would make stale.
  client.setNotificationHandler(sdk.ResourceListChangedNotificationSchema, () => {});
}

/** Each folder once, as a `file://` root named after its last part. */
export function rootsOf(folders: readonly string[]): { uri: string; name: string }[] {
  const seen = new Set<string>();
  const roots: { uri: string; name: string }[] = [];
  for (const f of folders) {
    const abs = path.resolve(f);
    if (seen.has(abs)) continue;
    seen.add(abs);
    roots.push({ uri: pathToFileURL(abs).href, name: path.basename(abs) || abs });
  }
  return roots;
}

function toResult(a: ElicitationAnswer): ElicitResult {
  return a.action === "accept" && a.content
    ? { action: "accept", content: { ...a.content } as ElicitResult["content"] }
    : { action: a.action };
}
