import type { Content, RunRequest } from "./run-types.js";

const SLASH = /^\/([A-Za-z0-9_][A-Za-z0-9_:.-]*)(?:\s+([\s\S]*))?$/;

/**
 * What a typed line asks for: `/name args` is a command or skill; anything else is a prompt, after
 * `initial` when given (agent.md's initialPrompt, for a new session's first line).
 */
export function parseLine(input: Content, agent?: string, initial?: string): RunRequest {
  if (agent !== undefined) return { kind: "agent", name: agent, content: input };
  const slash = typeof input === "string" ? SLASH.exec(input.trim()) : null;
  if (!slash) return { kind: "prompt", content: withInitialPrompt(initial, input) };
  return { kind: "invocable", name: slash[1] as string, args: (slash[2] ?? "").trim(), by: "user" };
}

/**
 * A definition's `initialPrompt` before the prompt it is given, in one user turn: alone when the
 * prompt is empty or is the initialPrompt itself (a chat's first turn, which submits it).
 */
export function withInitialPrompt(initial: string | undefined, content: Content): Content {
  if (initial === undefined || initial.trim() === "") return content;
  if (typeof content === "string")
    return content.trim() === "" || content.trim() === initial.trim() ? initial : `${initial}\n\n${content}`;
  return [{ type: "text", text: initial }, ...content];
}
