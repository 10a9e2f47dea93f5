import { appendFileSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { nodeCrypto } from "../../shared/node-builtins.js";
import { VERSION } from "../version.js";

/**
 * The conversation as Claude Code keeps it, for what reads Claude Code's sessions rather than
 * agentmd's: the Agent SDK's `getSessionMessages` and `listSessions` — and through them
 * claude-agent-acp's `session/load`, which replays a session to the editor from there. One JSON
 * line a message in `<config>/projects/<cwd, each other character a dash>/<session>.jsonl`
 * (`<config>`: CLAUDE_CONFIG_DIR, else ~/.claude), each naming the one before (`parentUuid`):
 * the user's messages as sent, the main agent's responses, the tool results sent back.
 * agentmd's own transcript (`.agentmd/sessions/`) stays what a resume reads.
 */
export interface ClaudeHistory {
  /** A message of the turn, as sent to the program; the user's, or the main agent's. */
  add(sessionId: string, message: Record<string, unknown>): void;
}

type Env = Readonly<Record<string, string | undefined>>;

/** Where Claude Code keeps a project's sessions; undefined when there is no home to keep them in. */
export function claudeProjectDir(env: Env, cwd: string): string | undefined {
  const config = env.CLAUDE_CONFIG_DIR || (env.HOME ? path.join(env.HOME, ".claude") : undefined);
  return config && path.join(config, "projects", cwd.replace(/[^a-zA-Z0-9]/g, "-"));
}

export function claudeHistory(
  env: Env,
  cwd: string,
  warn: (message: string) => void,
): ClaudeHistory | undefined {
  const dir = claudeProjectDir(env, cwd);
  if (!dir) return undefined;
  const last = new Map<string, string | null>();
  let failed = false;
  return {
    add(sessionId, m) {
      if (failed || !sessionId || (m.type !== "user" && m.type !== "assistant")) return;
      if (m.parent_tool_use_id) return;
      const file = path.join(dir, `${sessionId}.jsonl`);
      const uuid = typeof m.uuid === "string" ? m.uuid : nodeCrypto().randomUUID();
      const entry = {
        parentUuid: last.has(sessionId) ? last.get(sessionId) : lastUuid(file),
        isSidechain: false,
        userType: "external",
        cwd,
        sessionId,
        version: VERSION,
        type: m.type,
        message: m.message,
        uuid,
        timestamp: new Date().toISOString(),
      };
      try {
        appendMaking(dir, file, `${JSON.stringify(entry)}\n`);
        last.set(sessionId, uuid);
      } catch (e) {
        // The session goes on (agentmd's transcript has it); the editor's history lacks it.
        failed = true;
        warn(`cannot write the session's history to ${file}: ${(e as Error).message}`);
      }
    },
  };
}

/** Appends to `file`, making its folder only when it is missing (not at every message of every turn). */
function appendMaking(dir: string, file: string, text: string): void {
  try {
    appendFileSync(file, text);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    mkdirSync(dir, { recursive: true });
    appendFileSync(file, text);
  }
}

/** The last message's id of a session written before (a resumed one), or null for a new one. */
function lastUuid(file: string): string | null {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return null;
  }
  for (const line of text.trimEnd().split("\n").reverse()) {
    try {
      const uuid = (JSON.parse(line) as { uuid?: unknown }).uuid;
      if (typeof uuid === "string") return uuid;
    } catch {
      // a line cut short: the one before it
    }
  }
  return null;
}
