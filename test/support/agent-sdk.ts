import path from "node:path";
import {
  type Options,
  query,
  type SDKMessage,
  type SDKSystemMessage,
  type SDKUserMessage,
} from "@anthropic-ai/claude-agent-sdk";
import { REPO_ROOT } from "./fixtures.js";

/** The built CLI as the Agent SDK starts Claude Code: `node bin/agentmd.js …` (a `.js` path). */
export const AGENTMD_FOR_SDK = path.join(REPO_ROOT, "bin/agentmd.js");

export interface SdkRun {
  readonly messages: SDKMessage[];
  /** What the query's iterator threw at the end (a non-zero exit), if anything. */
  readonly error?: Error;
}

/**
 * An SDK user's program: `query({ prompt, options })` with only the executable changed, every
 * message it yields collected (stderr too, for a failing test's message).
 */
export async function sdkQuery(
  prompt: string | AsyncIterable<SDKUserMessage>,
  options: Options & { cwd: string; env: Record<string, string | undefined> },
  onMessage?: (m: SDKMessage, q: ReturnType<typeof query>) => void | Promise<void>,
): Promise<SdkRun & { stderr: string }> {
  let stderr = "";
  const q = query({
    prompt,
    options: {
      pathToClaudeCodeExecutable: AGENTMD_FOR_SDK,
      stderr: (s) => {
        stderr += s;
      },
      ...options,
    },
  });
  const messages: SDKMessage[] = [];
  try {
    for await (const m of q) {
      messages.push(m);
      await onMessage?.(m, q);
    }
  } catch (e) {
    return { messages, error: e as Error, stderr };
  }
  return { messages, stderr };
}

/** The messages of one type (and subtype). */
export function ofType<T extends SDKMessage["type"]>(
  run: SdkRun,
  type: T,
  subtype?: string,
): Extract<SDKMessage, { type: T }>[] {
  return run.messages.filter(
    (m) => m.type === type && (subtype === undefined || (m as { subtype?: string }).subtype === subtype),
  ) as Extract<SDKMessage, { type: T }>[];
}

/** A streaming-input prompt: each message yielded when `next` says so (after the previous result). */
export function userTurns(texts: readonly string[]): {
  prompt: AsyncIterable<SDKUserMessage>;
  next(): void;
} {
  const gates: (() => void)[] = [];
  let opened = 0;
  const waits = texts.map((_, i) => (i === 0 ? Promise.resolve() : new Promise<void>((r) => gates.push(r))));
  return {
    prompt: (async function* () {
      for (const [i, t] of texts.entries()) {
        await waits[i];
        yield {
          type: "user",
          message: { role: "user", content: t },
          parent_tool_use_id: null,
          session_id: "",
        };
      }
    })(),
    next: () => gates[opened++]?.(),
  };
}

/** The session's first `system` `init` message. */
export const initOf = (run: SdkRun): SDKSystemMessage | undefined =>
  run.messages.find((m): m is SDKSystemMessage => m.type === "system" && m.subtype === "init");
