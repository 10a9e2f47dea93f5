import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type {
  CallToolResult,
  GetPromptResult,
  Prompt as McpPrompt,
  Tool as McpTool,
} from "@modelcontextprotocol/sdk/types.js";
import type { McpServerConfig } from "../definitions/types.js";
import { expandConfig } from "./expand-vars.js";
import { forgetLiveServer, rememberLiveServer } from "./live-servers.js";
import { loadMcpSdk, type McpSdk } from "./mcp-sdk.js";
import type { McpServerSpec } from "./server-spec.js";
import { StderrTail } from "./stderr-tail.js";

/** What a server offers, as listed when it started. */
export interface ServerListing {
  readonly tools: readonly McpTool[];
  readonly prompts: readonly McpPrompt[];
}

export type ServerStatus =
  | { readonly state: "stopped" }
  | { readonly state: "starting" }
  | { readonly state: "ready"; readonly listing: ServerListing }
  | { readonly state: "failed"; readonly message: string };

export type Started = { ok: true; listing: ServerListing } | { ok: false; message: string };

export type CallOutcome = { ok: true; result: CallToolResult } | { ok: false; message: string };

export interface ConnectionContext {
  /** Milliseconds a server may take to answer one call (`mcpTimeout`). */
  readonly timeoutMs: number;
  /** Milliseconds a server may take to start and list what it offers (default 30 s). */
  readonly startTimeoutMs?: number;
  /** Where a stdio server runs when its definition names no `cwd` (the project). */
  readonly cwd: string;
  /** `${VAR}` values, and the environment a stdio server inherits (a few safe names of it). */
  readonly env: Readonly<Record<string, string | undefined>>;
}

export const DEFAULT_START_TIMEOUT_MS = 30_000;

/** The names of the runner's environment a stdio server inherits; its own `env` adds to them. */
const INHERITED = ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "TMPDIR"];
/** A trace context agentmd was started in goes on to its stdio servers (they start before any run's span). */
const TRACE_CONTEXT = ["TRACEPARENT", "TRACESTATE"];

/**
 * One MCP server, started on first use and shared by the runs of a runner. A server that fails to
 * start, stops, or does not answer in time makes the call an error (with the tail of its stderr),
 * never a dead run; it is started again on the next call. The class only holds that state.
 */
export class McpConnection {
  #client: Client | undefined;
  #sdk: McpSdk | undefined;
  #starting: Promise<Started> | undefined;
  #status: ServerStatus = { state: "stopped" };
  #lost: string | undefined;
  readonly #stderr = new StderrTail();
  #closed = false;

  constructor(
    readonly spec: McpServerSpec,
    private readonly cx: ConnectionContext,
  ) {}

  get #startTimeout(): number {
    return this.cx.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  }

  get status(): ServerStatus {
    return this.#status;
  }

  /** Starts the server (once, however many ask at a time) and lists what it offers. Never rejects. */
  start(): Promise<Started> {
    if (this.#client && this.#status.state === "ready") return Promise.resolve(ok(this.#status.listing));
    this.#starting ??= this.#open().finally(() => {
      this.#starting = undefined;
    });
    return this.#starting;
  }

  /** Calls one tool by its server-side name. Never rejects. */
  async callTool(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallOutcome> {
    const started = await this.start();
    if (!started.ok) return { ok: false, message: started.message };
    const client = this.#client;
    if (!client) return { ok: false, message: this.#lostMessage() };
    // One signal per call: the SDK keeps its listener on the signal it is given, and a run's signal
    // lives for many calls.
    const call = new AbortController();
    const abort = () => call.abort();
    signal.addEventListener("abort", abort, { once: true });
    try {
      const result = (await client.callTool({ name, arguments: args }, undefined, {
        timeout: this.cx.timeoutMs,
        signal: call.signal,
      })) as CallToolResult;
      return { ok: true, result };
    } catch (e) {
      return { ok: false, message: await this.#failedCall(client, e, signal) };
    } finally {
      signal.removeEventListener("abort", abort);
    }
  }

  /** A prompt's messages, by its server-side name. Never rejects. */
  async getPrompt(
    name: string,
    args: Record<string, string>,
  ): Promise<{ ok: true; result: GetPromptResult } | { ok: false; message: string }> {
    const started = await this.start();
    if (!started.ok) return { ok: false, message: started.message };
    const client = this.#client;
    if (!client) return { ok: false, message: this.#lostMessage() };
    try {
      return {
        ok: true,
        result: await client.getPrompt({ name, arguments: args }, { timeout: this.cx.timeoutMs }),
      };
    } catch (e) {
      return { ok: false, message: await this.#failedCall(client, e, new AbortController().signal) };
    }
  }

  /** Stops the server; a later call starts it again unless the runner is closed. */
  async close(final = true): Promise<void> {
    if (final) this.#closed = true;
    const client = this.#client;
    this.#client = undefined;
    if (final) this.#status = { state: "stopped" };
    await client?.close().catch(() => {});
  }

  async #open(): Promise<Started> {
    if (this.#closed) return this.#fail("the runner is closed");
    this.#status = { state: "starting" };
    this.#lost = undefined;
    this.#stderr.clear();
    const { config, missing, secrets } = expandConfig(this.spec.config, this.cx.env);
    if (secrets.length > 0)
      return this.#fail(
        `its definition names ${secrets.map((m) => `\${${m}}`).join(", ")}, agentmd's own credential, which is never handed to an MCP server`,
      );
    if (missing.length > 0)
      return this.#fail(
        `its definition needs ${missing.map((m) => `\${${m}}`).join(", ")}, which is not set`,
      );
    let sdk: McpSdk;
    try {
      sdk = await loadMcpSdk();
    } catch (e) {
      return this.#fail(`the MCP client could not be loaded: ${(e as Error).message}`);
    }
    this.#sdk = sdk;
    const client = new sdk.Client({ name: "agentmd", version: "0.1.0" }, { capabilities: {} });
    let transport: Transport;
    try {
      transport = this.#transport(config, sdk);
    } catch (e) {
      return this.#fail((e as Error).message);
    }
    client.onclose = () => this.#onClose(client);
    client.onerror = () => {};
    try {
      await client.connect(transport, { timeout: this.#startTimeout });
      const pid = (transport as { pid?: number | null }).pid;
      if (typeof pid === "number") rememberLiveServer(pid, client);
      const listing = await this.#list(client);
      this.#client = client;
      this.#status = { state: "ready", listing };
      return ok(listing);
    } catch (e) {
      await client.close().catch(() => {});
      return this.#fail(await this.#describe(e, "could not be started"));
    }
  }

  #transport(config: McpServerConfig, sdk: McpSdk): Transport {
    const headers = config.headers ? { headers: { ...config.headers } } : {};
    if (config.type === "http")
      return new sdk.StreamableHTTPClientTransport(new URL(config.url ?? ""), { requestInit: headers });
    if (config.type === "sse")
      return new sdk.SSEClientTransport(new URL(config.url ?? ""), { requestInit: headers });
    const env: Record<string, string> = {};
    for (const k of [...INHERITED, ...TRACE_CONTEXT]) {
      const v = this.cx.env[k];
      if (typeof v === "string") env[k] = v;
    }
    const transport = new sdk.StdioClientTransport({
      command: config.command ?? "",
      args: [...(config.args ?? [])],
      env: { ...env, ...config.env },
      cwd: config.cwd ?? this.cx.cwd,
      stderr: "pipe",
    });
    transport.stderr?.on("data", (chunk: Buffer | string) => this.#stderr.push(String(chunk)));
    return transport;
  }

  async #list(client: Client): Promise<ServerListing> {
    const tools: McpTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: this.#startTimeout });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor && tools.length < 10_000);
    const prompts: McpPrompt[] = [];
    if (client.getServerCapabilities()?.prompts) {
      const page = await client
        .listPrompts(undefined, { timeout: this.#startTimeout })
        .catch(() => undefined);
      prompts.push(...(page?.prompts ?? []));
    }
    return { tools, prompts };
  }

  #onClose(client: Client): void {
    forgetLiveServer(client);
    if (this.#client !== client) return;
    this.#client = undefined;
    this.#lost = "the server stopped";
    if (!this.#closed) this.#status = { state: "failed", message: this.#lostMessage() };
  }

  /** Why a request failed; a server that timed out or stopped is closed, to be started on the next call. */
  async #failedCall(client: Client, e: unknown, signal: AbortSignal): Promise<string> {
    if (signal.aborted) return "the call was interrupted";
    const sdk = this.#sdk;
    const timedOut =
      sdk !== undefined && e instanceof sdk.McpError && e.code === sdk.ErrorCode.RequestTimeout;
    const message = await this.#describe(
      e,
      timedOut ? `did not answer within ${this.cx.timeoutMs / 1000} s` : "failed during the call",
    );
    if (timedOut || this.#client !== client || !this.#client) {
      if (this.#client === client) this.#client = undefined;
      this.#status = { state: "failed", message };
      await client.close().catch(() => {});
    }
    return `${message}; it will be started again on the next call`;
  }

  async #describe(e: unknown, what: string): Promise<string> {
    // Let the last of a dying process's stderr arrive before it is quoted.
    await new Promise((resolve) => setImmediate(resolve));
    const why = e instanceof Error ? e.message : String(e);
    const tail = this.#stderr.text();
    return `MCP server '${this.spec.name}' ${what}: ${why}${tail ? `\nits stderr ended with:\n${tail}` : ""}`;
  }

  #lostMessage(): string {
    const tail = this.#stderr.text();
    return `MCP server '${this.spec.name}': ${this.#lost ?? "not running"}${tail ? `\nits stderr ended with:\n${tail}` : ""}`;
  }

  #fail(why: string): Started {
    const message = why.startsWith("MCP server")
      ? why
      : `MCP server '${this.spec.name}' could not be started: ${why}`;
    this.#status = { state: "failed", message };
    return { ok: false, message };
  }
}

const ok = (listing: ServerListing): Started => ({ ok: true, listing });
