import type {
  AgentContext,
  ClientCapabilities,
  ContentBlock,
  McpServer,
  PromptResponse,
  SessionModeState,
  SessionUpdate,
} from "@agentclientprotocol/sdk";
import { RequestError } from "@agentclientprotocol/sdk";
import type { PermissionMode } from "../../definitions/settings.js";
import type { McpServerConfigInput } from "../../definitions/types.js";
import type { Content } from "../../invocation/run-types.js";
import { readSession, SessionError, sessionsDir } from "../../loop/transcript.js";
import type { ContentBlockParam } from "../../model/messages.js";
import { ConfigError } from "../../shared/errors.js";
import { restrictedWithNotice } from "../commands/project-trust.js";
import type { RunIo } from "../commands/run-command.js";
import type { SessionOptions } from "../flags/session-flags.js";
import { openRunner } from "../open-runner.js";
import { driveSession, type SessionDriver } from "../session/session-driver.js";
import { printable } from "../terminal/printable.js";
import { editorFs } from "./acp-fs.js";
import { acpApprover } from "./acp-permission.js";
import { editorTerminals } from "./acp-terminal.js";
import { stopReasonOf, updateMapper } from "./acp-updates.js";

/** One editor session: its driver, and how its updates reach the editor. */
export interface AcpSession {
  readonly driver: SessionDriver;
  readonly cwd: string;
  prompt(blocks: readonly ContentBlock[]): Promise<PromptResponse>;
  modes(): SessionModeState;
  setMode(mode: string): Promise<void>;
  /** Says the project's commands and skills (after the session's answer). */
  announce(): Promise<void>;
  /** Sends the saved conversation (session/load). */
  replay(): Promise<void>;
  close(): Promise<void>;
}

export interface OpenSessionInput {
  readonly sessionId: string;
  readonly cwd: string;
  readonly mcpServers: readonly McpServer[];
  readonly resumed: boolean;
  readonly client: AgentContext;
  readonly capabilities: ClientCapabilities | undefined;
}

const MODE_NAMES: Readonly<Record<PermissionMode, [string, string]>> = {
  default: ["Default", "Asks before a call the lists allow but nothing pre-approves"],
  acceptEdits: ["Accept edits", "File edits in the working folders run without asking"],
  plan: ["Plan", "Reads only: nothing is changed"],
  bypassPermissions: ["Bypass permissions", "Every call the lists allow runs without asking"],
};

/**
 * A session an editor opened (`session/new`, `session/load`): the project at its `cwd` opened as
 * every command opens it, the editor's MCP servers beside the project's (under the same lists), the
 * editor asked about the calls that need approval, its files and terminals used when it offers them.
 */
export async function openAcpSession(
  options: SessionOptions,
  io: RunIo,
  input: OpenSessionInput,
): Promise<AcpSession> {
  const { client, sessionId, cwd } = input;
  let driven: SessionDriver | undefined;
  const fs = input.capabilities?.fs;
  const files =
    fs?.readTextFile || fs?.writeTextFile
      ? editorFs(client, sessionId, { read: fs.readTextFile === true, write: fs.writeTextFile === true })
      : undefined;
  // The session's updates go out in the order they are made.
  let sending = Promise.resolve();
  const send = (update: SessionUpdate) => client.notify("session/update", { sessionId, update });
  const queue = (update: SessionUpdate) => {
    sending = sending.then(() => send(update)).catch(() => {});
  };
  const terminals = input.capabilities?.terminal ? editorTerminals(client, sessionId, queue) : undefined;
  const approve = acpApprover({ client: () => client, sessionId, cwd, signal: () => driven?.signal() });
  const runner = await openRunner(
    {
      ...options,
      cwd,
      permissions: { ...options.permissions, approve },
      extra: {
        ...(input.mcpServers.length > 0 && { mcp: { servers: mcpServersOf(input.mcpServers) } }),
        ...((files || terminals) && {
          tools: { builtin: { ...(files && { fs: files }), ...(terminals && { spawn: terminals.spawn }) } },
        }),
      },
    },
    { ...io, cwd },
    restrictedWithNotice(io),
  );
  if (!runner) throw RequestError.internalError(undefined, `agentmd could not open the project at ${cwd}`);
  const driver = driveSession(runner, { sessionId, resumed: input.resumed });
  driven = driver;
  const modes = (): SessionModeState => {
    const m = driver.modes();
    return {
      currentModeId: m.current,
      availableModes: m.available.map((id) => ({
        id,
        name: MODE_NAMES[id][0],
        description: MODE_NAMES[id][1],
      })),
    };
  };
  return {
    driver,
    cwd,
    modes,
    async prompt(blocks) {
      if (driver.busy()) throw RequestError.invalidRequest(undefined, "a prompt of this session is running");
      const mapper = updateMapper(cwd, terminals?.ofCall ?? new Map());
      const result = await driver
        .turn(contentOf(blocks), (event) => {
          terminals?.observe(event);
          for (const update of mapper.live(event)) queue(update);
        })
        .catch((e: unknown) => {
          if (e instanceof SessionError) throw RequestError.internalError(undefined, printable(e.message));
          throw e;
        });
      await sending;
      const stopReason = stopReasonOf(result);
      if (stopReason) return { stopReason };
      // A run that could not go on (a model error, nothing left by the lists) is said as a message,
      // then the turn ends: the session stays usable.
      await send({
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text: `\n\nagentmd: ${printable(result.message ?? result.outcome)}` },
      });
      return { stopReason: result.outcome === "refused" ? "refusal" : "end_turn" };
    },
    async setMode(mode) {
      const m = driver.modes();
      if (!(m.available as readonly string[]).includes(mode))
        throw RequestError.invalidParams(undefined, `'${mode}' is not a mode this session offers`);
      try {
        driver.setMode(mode as PermissionMode);
      } catch (e) {
        if (e instanceof ConfigError) throw RequestError.invalidParams(undefined, e.message);
        throw e;
      }
      await send({ sessionUpdate: "current_mode_update", currentModeId: mode });
    },
    announce: async () =>
      send({
        sessionUpdate: "available_commands_update",
        availableCommands: (await driver.commands()).map((c) => ({
          name: c.name,
          description: c.description || `/${c.name}`,
          ...(c.argumentHint && { input: { hint: c.argumentHint } }),
        })),
      }),
    async replay() {
      const mapper = updateMapper(cwd, new Map());
      const { events } = readSession(sessionsDir(runner.projectDir), sessionId);
      for (const e of events) for (const update of mapper.replay(e)) await send(update);
    },
    async close() {
      await driver.cancel();
      await driver.end("other", (m) => io.stderr.write(`agentmd: warning: ${printable(m)}\n`));
      await terminals?.close();
      await runner.close();
    },
  };

  function contentOf(blocks: readonly ContentBlock[]): Content {
    const parts = blocks.flatMap((b): ContentBlockParam[] => {
      if (b.type === "text") return [{ type: "text", text: b.text }];
      if (b.type === "image")
        return [
          {
            type: "image",
            source: { type: "base64", media_type: b.mimeType as "image/png", data: b.data },
          },
        ];
      if (b.type === "resource" && "text" in b.resource)
        return [{ type: "text", text: `<context ref="${b.resource.uri}">\n${b.resource.text}\n</context>` }];
      if (b.type === "resource_link") return [{ type: "text", text: `@${b.uri}` }];
      return [];
    });
    // A prompt of text alone is a line as typed: `/name args` runs a command or skill.
    if (parts.every((p) => p.type === "text"))
      return parts.map((p) => (p as { text: string }).text).join("\n");
    return parts;
  }
}

/** The editor's MCP servers as `.mcp.json` writes them. */
function mcpServersOf(servers: readonly McpServer[]): Record<string, McpServerConfigInput> {
  const out: Record<string, McpServerConfigInput> = {};
  const pairs = (list: readonly { name: string; value: string }[]) =>
    Object.fromEntries(list.map((p) => [p.name, p.value]));
  for (const s of servers) {
    if ("type" in s && (s.type === "http" || s.type === "sse"))
      out[s.name] = { type: s.type, url: s.url, headers: pairs(s.headers) };
    else if ("command" in s)
      out[s.name] = { type: "stdio", command: s.command, args: s.args, env: pairs(s.env) };
  }
  return out;
}
