import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { McpServerConfig } from "../definitions/types.js";
import { rememberLiveServer } from "./live-servers.js";
import type { McpSdk } from "./mcp-sdk.js";
import { MessageBuffer } from "./message-buffer.js";

/** The names of the runner's environment a stdio server inherits; its own `env` adds to them. */
const INHERITED = ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "TMPDIR"];
/** A trace context agentmd was started in goes on to its stdio servers (traced: their start-up span's). */
const TRACE_CONTEXT = ["TRACEPARENT", "TRACESTATE"];

/** The largest message a stdio server may send (the SDK's default is 10 MB). */
export const MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

/** The environment a stdio server starts with (before its own `env`); traced: under its start-up span. */
export function stdioEnv(
  from: Readonly<Record<string, string | undefined>>,
  traceparent: string | undefined,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of [...INHERITED, ...TRACE_CONTEXT]) {
    const v = from[k];
    if (typeof v === "string") env[k] = v;
  }
  if (traceparent) env.TRACEPARENT = traceparent;
  return env;
}

/** A stdio server's transport: its environment, its stderr kept, its process known to the clean-up once spawned. */
export function stdioTransport(
  sdk: McpSdk,
  config: McpServerConfig,
  o: { env: Record<string, string>; cwd: string; owner: Client; onStderr: (text: string) => void },
): Transport {
  const transport = new sdk.StdioClientTransport({
    command: config.command ?? "",
    args: [...(config.args ?? [])],
    env: { ...o.env, ...config.env },
    cwd: config.cwd ?? o.cwd,
    stderr: "pipe",
  });
  // One message may be large (a 50 MB answer is cut later, in mcp-tools.ts): read in linear time,
  // and only past MAX_MESSAGE_BYTES does the stream (and so the server) give up.
  // (The SDK's field, checked by test/mcp/mcp-faults.test.ts.)
  if ("_readBuffer" in transport)
    (transport as unknown as { _readBuffer: unknown })._readBuffer = new MessageBuffer(
      MAX_MESSAGE_BYTES,
      sdk.deserializeMessage,
    );
  transport.stderr?.on("data", (chunk: Buffer | string) => o.onStderr(String(chunk)));
  // Known to the CLI's clean-up from the moment it is spawned (start spawns it synchronously): a
  // SIGTERM while it starts stops it too.
  const start = transport.start.bind(transport);
  transport.start = () => {
    const started = start();
    if (typeof transport.pid === "number") rememberLiveServer(transport.pid, o.owner);
    return started;
  };
  return transport;
}
