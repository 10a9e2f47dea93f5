import type { Definition, HookEntry, HooksSetting } from "../definitions/types.js";

/**
 * Restricted mode, for a folder whose code is not trusted: its definitions and settings keep every
 * list, deny and ask, and lose what would run code or send the key elsewhere. Pure.
 */

/** What the model is told of a call an unrun PreToolUse hook would have judged. */
export function hookRefusal(command: string): string {
  return `refused: the project's PreToolUse hook '${command}' would judge this call, and it did not run because this folder is not trusted (a guard that cannot run refuses what it guards); review the project's code and run 'agentmd trust' to let it run`;
}

/** Each hook kept where it was (so its matcher still picks the calls it guards), marked as not run. */
export function withholdHooks(hooks: HooksSetting): HooksSetting {
  const mark = (list: readonly HookEntry[] | undefined) =>
    (list ?? []).map((h) => ({ ...h, withheld: hookRefusal(h.command) }));
  return Object.fromEntries(Object.entries(hooks).map(([event, list]) => [event, mark(list)]));
}

/**
 * A project's definition without its code: its hooks withheld, its `mcpServers` left out (inline
 * ones would start; a name only points into `.mcp.json`, which is not read either, and would warn
 * of a server that is missing), agent.md's `baseUrl` not used.
 */
export function withoutProjectCode(def: Definition): Definition {
  const hooks = "hooks" in def && def.hooks ? { hooks: withholdHooks(def.hooks) } : {};
  if (def.surface === "main") {
    const { baseUrl: _url, mcpServers: _servers, ...rest } = def;
    return { ...rest, ...hooks };
  }
  if (def.surface === "agent") {
    const { mcpServers: _servers, ...rest } = def;
    return { ...rest, ...hooks };
  }
  return { ...def, ...hooks };
}
