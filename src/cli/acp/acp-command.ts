import { existsSync } from "node:fs";
import path from "node:path";
import {
  type AgentContext,
  agent,
  type ClientCapabilities,
  type McpServer,
  ndJsonStream,
  PROTOCOL_VERSION,
  RequestError,
} from "@agentclientprotocol/sdk";
import { findProjectRoot } from "../../definitions/discover.js";
import { checkSessionId, newSessionId, sessionFile, sessionsDir } from "../../loop/transcript.js";
import { AgentmdError } from "../../shared/errors.js";
import type { RunIo } from "../commands/run-command.js";
import { optionsHelp } from "../flags/option-table.js";
import { ACP_FLAGS, type SessionOptions } from "../flags/session-flags.js";
import { printable } from "../terminal/printable.js";
import { VERSION } from "../version.js";
import { type AcpSession, openAcpSession } from "./acp-session.js";

export { ACP_FLAGS };

export const ACP_HELP = `Usage: agentmd acp [options]

Speaks the Agent Client Protocol (v1) on standard input and output, for an editor (Zed, the
JetBrains IDEs, Neovim, Emacs) that starts agentmd as its agent. Each editor session is a session
of the project at its folder: its prompts stream as the agent's messages, tool calls (with diffs
and terminal output) and plan; a call that needs approval is asked in the editor (once, always
for the session, or reject), and a call outside the lists is refused without asking. '/name args'
runs a command or skill. When the editor offers them, files are read and written through its
buffers and commands run in its terminals. See docs/editors.md.

Options (for every session):
${optionsHelp(ACP_FLAGS, 25)}

Example (Zed's settings.json):
  "agent_servers": { "agentmd": { "command": "agentmd", "args": ["acp"] } }`;

/** Runs `agentmd acp` until the editor closes standard input; returns the exit code. */
export async function runAcp(options: SessionOptions, io: RunIo): Promise<number> {
  const stdin = io.stdin;
  if (!stdin) {
    io.stderr.write("agentmd acp: needs the editor's messages on standard input\n");
    return 2;
  }
  const sessions = new Map<string, Promise<AcpSession>>();
  let capabilities: ClientCapabilities | undefined;
  const open = (
    client: AgentContext,
    p: { cwd: string; mcpServers: McpServer[]; sessionId?: string },
    id: string,
  ) => {
    if (!path.isAbsolute(p.cwd)) throw RequestError.invalidParams(undefined, "cwd must be an absolute path");
    if (!existsSync(p.cwd)) throw RequestError.invalidParams(undefined, `no such folder: ${p.cwd}`);
    const opened = openAcpSession(options, io, {
      sessionId: id,
      cwd: p.cwd,
      mcpServers: p.mcpServers,
      resumed: p.sessionId !== undefined,
      client,
      capabilities,
    });
    sessions.set(id, opened);
    opened.catch(() => sessions.delete(id));
    return opened;
  };
  const session = async (id: string): Promise<AcpSession> => {
    const s = sessions.get(id);
    if (!s) throw RequestError.invalidParams(undefined, `no session '${id}' is open`);
    return s;
  };
  const app = agent({ name: "agentmd" })
    .onRequest("initialize", ({ params }) => {
      capabilities = params.clientCapabilities;
      return {
        protocolVersion: PROTOCOL_VERSION,
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: true, audio: false, embeddedContext: true },
          mcpCapabilities: { http: true, sse: true },
        },
        agentInfo: { name: "agentmd", title: "agentmd", version: VERSION },
        authMethods: [],
      };
    })
    .onRequest("session/new", async ({ params, client }) => {
      const id = newSessionId();
      const s = await open(client, params, id).catch(failure);
      setImmediate(() => void s.announce().catch(() => {}));
      return { sessionId: id, modes: s.modes() };
    })
    .onRequest("session/load", async ({ params, client }) => {
      const id = params.sessionId;
      if (sessions.has(id))
        throw RequestError.invalidParams(undefined, `the session '${id}' is open already`);
      if (!savedSession(params.cwd, id, io))
        throw RequestError.resourceNotFound(`session '${id}' in ${params.cwd}`);
      const s = await open(client, { ...params }, id).catch(failure);
      await s.replay();
      setImmediate(() => void s.announce().catch(() => {}));
      return { modes: s.modes() };
    })
    .onRequest("session/prompt", async ({ params }) =>
      (await session(params.sessionId)).prompt(params.prompt),
    )
    .onRequest("session/set_mode", async ({ params }) => {
      await (await session(params.sessionId)).setMode(params.modeId);
      return {};
    })
    .onNotification("session/cancel", async ({ params }) => {
      await (await sessions.get(params.sessionId))?.driver.cancel();
    });
  const connection = app.connect(ndJsonStream(writableOf(io), readableOf(stdin)));
  const unhook = io.onInterrupt?.(() => connection.close());
  try {
    await connection.closed;
  } finally {
    unhook?.();
    // Standard input ended: every session's turn stops, its hooks end it, its servers stop.
    const all = await Promise.allSettled([...sessions.values()]);
    await Promise.all(all.map((s) => (s.status === "fulfilled" ? s.value.close() : undefined)));
  }
  return 0;
}

/** A session that cannot be opened: why, as the editor shows it. */
function failure(e: unknown): never {
  if (e instanceof RequestError) throw e;
  if (e instanceof AgentmdError) throw RequestError.internalError(undefined, printable(e.message));
  throw e;
}

/** Whether the project at `cwd` has a saved session `id`. */
function savedSession(cwd: string, id: string, io: RunIo): boolean {
  try {
    checkSessionId(id);
  } catch {
    return false;
  }
  return existsSync(sessionFile(sessionsDir(findProjectRoot(cwd, io.env.HOME)), id));
}

function writableOf(io: RunIo): WritableStream<Uint8Array> {
  const decoder = new TextDecoder();
  return new WritableStream({
    write: (chunk) => {
      io.stdout.write(decoder.decode(chunk, { stream: true }));
    },
  });
}

function readableOf(stdin: AsyncIterable<string | Buffer>): ReadableStream<Uint8Array> {
  const it = stdin[Symbol.asyncIterator]();
  const encoder = new TextEncoder();
  return new ReadableStream({
    async pull(controller) {
      const next = await it.next();
      if (next.done) controller.close();
      else controller.enqueue(typeof next.value === "string" ? encoder.encode(next.value) : next.value);
    },
    async cancel() {
      await it.return?.();
    },
  });
}
