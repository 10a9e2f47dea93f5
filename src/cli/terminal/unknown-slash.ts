import { loadedNames, unknownInvocable } from "../../invocation/find-invocable.js";
import { isMcpPromptName } from "../../invocation/mcp-prompt.js";
import { parseLine } from "../../invocation/parse-line.js";
import type { Runner } from "../../invocation/runner.js";

/**
 * Why a typed `/name args` names nothing the project defines (a typo: `/revew`), or undefined for a
 * prompt, a known command or skill, or an MCP prompt (`/mcp__server__prompt`, known only once its
 * server answers). Asked before the run starts, so a typo sends nothing and writes no session.
 */
export function unknownSlash(runner: Runner, line: string): string | undefined {
  const request = parseLine(line);
  if (request.kind !== "invocable" || isMcpPromptName(request.name)) return undefined;
  const names = runner.slashNames();
  return names.includes(request.name) ? undefined : unknownInvocable(request.name, names);
}

/** Why `--agent NAME` names no subagent the project defines (a typo), or undefined: asked before the run. */
export function unknownAgent(runner: Runner, name: string): string | undefined {
  const agents = runner.definitions.filter((d) => d.surface === "agent").map((d) => d.name);
  return agents.includes(name)
    ? undefined
    : `--agent: no subagent named '${name}'${loadedNames(name, agents)}`;
}
