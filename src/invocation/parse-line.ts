import type { Content, RunRequest } from "./run-types.js";

const SLASH = /^\/([A-Za-z0-9_][A-Za-z0-9_:.-]*)(?:\s+([\s\S]*))?$/;

/** What a typed line asks for: `/name args` is a command or skill; anything else is a prompt. */
export function parseLine(input: Content, agent?: string): RunRequest {
  if (agent !== undefined) return { kind: "agent", name: agent, content: input };
  const slash = typeof input === "string" ? SLASH.exec(input.trim()) : null;
  if (!slash) return { kind: "prompt", content: input };
  return { kind: "invocable", name: slash[1] as string, args: (slash[2] ?? "").trim(), by: "user" };
}
