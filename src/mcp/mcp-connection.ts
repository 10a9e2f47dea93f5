import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type {
  CallToolResult,
  GetPromptResult,
  ListResourcesResult,
  Prompt as McpPrompt,
  Tool as McpTool,
  ReadResourceResult,
} from "@modelcontextprotocol/sdk/types.js";
import type { McpServerConfig } from "../definitions/types.js";
import { settleOrAbandon } from "../shared/abort.js";
import type { Started } from "./connection-wait.js";
import type { Elicit } from "./elicitation.js";
import { expandConfig } from "./expand-vars.js";
import { forgetLiveServer, stopProcess } from "./live-servers.js";
import { loadMcpSdk, type McpSdk } from "./mcp-sdk.js";
import { type RunSignIn, runSignIn, signInFailure } from "./oauth-session.js";
import { CLIENT_CAPABILITIES, installHandlers } from "./server-requests.js";
import { type McpServerSpec, mcpToolName } from "./server-spec.js";
import type { StartWatch } from "./start-watch.js";
import { StderrTail } from "./stderr-tail.js";
import { stdioEnv, stdioTransport } from "./stdio-env.js";

export type { Started } from "./connection-wait.js";
export type { ServerListing } from "./listing.js";

import type { ServerListing } from "./listing.js";

export type { StartWatch } from "./start-watch.js";

export type ServerStatus =
  | { readonly state: "stopped" }
  | { readonly state: "starting" }
  | { readonly state: "ready"; readonly listing: ServerListing }
  | { readonly state: "failed"; readonly message: string };

export type CallOutcome = { ok: true; result: CallToolResult } | { ok: false; message: string };
type Outcome<T> = { ok: true; result: T } | { ok: false; message: string };

export interface ConnectionContext {
  /** Milliseconds a server may take to answer one call (`mcpTimeout`). */
  readonly timeoutMs: number;
  /** Milliseconds a server may take to start and list what it offers (default 30 s). */
  readonly startTimeoutMs?: number;
  /** Where a stdio server runs when its definition names no `cwd` (the project). */
  readonly cwd: string;
  /** `${VAR}` values, and the environment a stdio server inherits (a few safe names of it). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * The home folder whose `~/.agentmd/mcp-auth.json` holds the user's sign-ins to HTTP servers:
   * that of the environment agentmd was started with. None: no sign-in is used.
   */
  readonly home?: string;
  /** The working folders `roots/list` is answered with (the project and every added folder). */
  readonly roots?: readonly string[];
  /** Who answers a server's questions (`elicitation/create`); absent: each is declined. */
  readonly elicit?: Elicit;
}

export const DEFAULT_START_TIMEOUT_MS = 30_000;

/**
 * One MCP server, started on first use and shared by the runs of a runner. A server that fails to
 * start or stops makes the call an error (with the tail of its stderr), never a dead run; it is
 * started again on the next call. A call past its time is cancelled alone. The class only holds
 * that state.
 */
export class McpConnection {
  #client: Client | undefined;
  /** The server being started, until it is ready or has failed. */
  #opening: { readonly client: Client; readonly transport: Transport } | undefined;
  #sdk: McpSdk | undefined;
  /** The sign-in kept for this server's URL, used while it is started. */
  #signIn: RunSignIn | undefined;
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

  /**
   * Starts the server (once, however many ask at a time) and lists what it offers. A `signal`'s
   * abort answers at once (the start goes on, for other callers, until `close`). Never rejects.
   */
  start(signal?: AbortSignal, watch?: StartWatch): Promise<Started> {
    if (this.#client && this.#status.state === "ready") return Promise.resolve(ok(this.#status.listing));
    this.#starting ??= this.#watched(watch).finally(() => {
      this.#starting = undefined;
    });
    if (!signal) return this.#starting;
    return settleOrAbandon(this.#starting, signal, 0, () => ({
      ok: false,
      interrupted: true,
      message: `the run was interrupted while MCP server '${this.spec.name}' was starting`,
    }));
  }

  /**
   * Calls one tool by its server-side name; `meta` goes in the request's `params._meta` (a call's
   * W3C trace context, as the OpenTelemetry MCP conventions carry it). Never rejects.
   */
  callTool(
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    meta?: Readonly<Record<string, string>>,
  ): Promise<CallOutcome> {
    return this.#request(mcpToolName(this.spec.name, name), signal, (client, options) =>
      client.callTool({ name, arguments: args, ...(meta && { _meta: { ...meta } }) }, undefined, options),
    ) as Promise<CallOutcome>;
  }

  /** A prompt's messages, by its server-side name. Never rejects. */
  getPrompt(name: string, args: Record<string, string>): Promise<Outcome<GetPromptResult>> {
    return this.#request(`the prompt '${name}'`, new AbortController().signal, (client, options) =>
      client.getPrompt({ name, arguments: args }, options),
    );
  }

  /** One page of the server's resources (`resources/list`). Never rejects. */
  listResources(signal: AbortSignal, cursor?: string): Promise<Outcome<ListResourcesResult>> {
    return this.#request("resources/list", signal, (client, options) =>
      client.getServerCapabilities()?.resources
        ? client.listResources(cursor ? { cursor } : undefined, options)
        : Promise.resolve({ resources: [] }),
    );
  }

  /** One resource's contents (`resources/read`). Never rejects. */
  readResource(uri: string, signal: AbortSignal): Promise<Outcome<ReadResourceResult>> {
    return this.#request(`the resource ${uri}`, signal, (client, options) =>
      client.readResource({ uri }, options),
    );
  }

  /**
   * One request, with the call's own timeout and signal: the SDK cancels just that request
   * (`notifications/cancelled`) when either ends it, and the server goes on serving the others. A
   * server that answers 404 for the session (an HTTP server that restarted) gets a new session, and
   * the request is sent again, once: the server never had it.
   */
  async #request<T>(
    what: string,
    signal: AbortSignal,
    send: (client: Client, options: RequestOptions) => Promise<T>,
  ): Promise<{ ok: true; result: T } | { ok: false; message: string }> {
    for (let attempt = 0; ; attempt++) {
      const started = await this.start(signal);
      if (!started.ok) return { ok: false, message: started.message };
      await this.#signIn?.fresh();
      const client = this.#client;
      if (!client) return { ok: false, message: this.#lostMessage() };
      // One signal per request: the SDK keeps its listener on the signal it is given, and a run's
      // signal lives for many calls.
      const request = new AbortController();
      const abort = () => request.abort();
      signal.addEventListener("abort", abort, { once: true });
      try {
        return {
          ok: true,
          result: await send(client, { timeout: this.cx.timeoutMs, signal: request.signal }),
        };
      } catch (e) {
        if (attempt === 0 && !signal.aborted && this.#sessionLost(e)) {
          await this.#drop(client);
          continue;
        }
        return {
          ok: false,
          message: await this.#failedCall(client, e, signal, { what, again: attempt > 0 }),
        };
      } finally {
        signal.removeEventListener("abort", abort);
      }
    }
  }

  /** Stops the server, a starting one too; a later call starts it again unless the runner is closed. */
  async close(final = true): Promise<void> {
    if (final) this.#closed = true;
    const client = this.#client;
    this.#client = undefined;
    if (final) this.#status = { state: "stopped" };
    const opening = this.#opening;
    this.#opening = undefined;
    // A server still starting has nothing to finish: it is stopped at once.
    if (opening) stopProcess(opening.transport);
    await Promise.all([client?.close().catch(() => {}), opening?.client.close().catch(() => {})]);
  }

  /** Lets go of a client whose session the server no longer knows: the next start makes a new one. */
  async #drop(client: Client): Promise<void> {
    if (this.#client === client) {
      this.#client = undefined;
      this.#status = { state: "stopped" };
    }
    await client.close().catch(() => {});
  }

  #sessionLost(e: unknown): boolean {
    const sdk = this.#sdk;
    return sdk !== undefined && e instanceof sdk.StreamableHTTPError && e.code === 404;
  }

  /** A start, told to the watch of the run that asked first (its start-up span). */
  async #watched(watch: StartWatch | undefined): Promise<Started> {
    const seen = watch?.starting({ server: this.spec.name, transport: this.spec.config.type });
    const r = await this.#open(seen?.traceparent);
    seen?.done(
      r.ok ? { tools: r.listing.tools.length, prompts: r.listing.prompts.length } : { error: r.message },
    );
    return r;
  }

  async #open(traceparent?: string): Promise<Started> {
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
    this.#signIn = runSignIn(config, this.spec.name, this.cx.home, sdk);
    await this.#signIn?.fresh();
    const client = new sdk.Client(
      { name: "agentmd", version: "0.1.0" },
      { capabilities: { ...CLIENT_CAPABILITIES } },
    );
    installHandlers(client, sdk, this.spec.name, {
      roots: this.cx.roots ?? [this.cx.cwd],
      ...(this.cx.elicit && { elicit: this.cx.elicit }),
      promptsChanged: () => void this.#relistPrompts(client),
    });
    let transport: Transport;
    try {
      transport = this.#transport(config, sdk, client, traceparent);
    } catch (e) {
      return this.#fail((e as Error).message);
    }
    client.onclose = () => this.#onClose(client);
    client.onerror = () => {};
    this.#opening = { client, transport };
    try {
      await client.connect(transport, { timeout: this.#startTimeout });
      const listing = await this.#list(client);
      if (this.#closed) throw new Error("the runner was closed while it started");
      this.#client = client;
      this.#status = { state: "ready", listing };
      return ok(listing);
    } catch (e) {
      await client.close().catch(() => {});
      return this.#fail(
        signInFailure(e, this.spec.name, sdk) ?? (await this.#describe(e, "could not be started")),
      );
    } finally {
      if (this.#opening?.client === client) this.#opening = undefined;
    }
  }

  #transport(config: McpServerConfig, sdk: McpSdk, owner: Client, traceparent?: string): Transport {
    const headers = config.headers ? { headers: { ...config.headers } } : {};
    const auth = this.#signIn && { authProvider: this.#signIn.provider };
    if (config.type === "http")
      return new sdk.StreamableHTTPClientTransport(new URL(config.url ?? ""), {
        requestInit: headers,
        ...auth,
      });
    if (config.type === "sse")
      return new sdk.SSEClientTransport(new URL(config.url ?? ""), { requestInit: headers, ...auth });
    return stdioTransport(sdk, config, {
      env: stdioEnv(this.cx.env, traceparent),
      cwd: this.cx.cwd,
      owner,
      onStderr: (text) => this.#stderr.push(text),
    });
  }

  async #list(client: Client): Promise<ServerListing> {
    const tools: McpTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: this.#startTimeout });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor && tools.length < 10_000);
    return { tools, prompts: await this.#prompts(client) };
  }

  async #prompts(client: Client): Promise<McpPrompt[]> {
    if (!client.getServerCapabilities()?.prompts) return [];
    const page = await client.listPrompts(undefined, { timeout: this.#startTimeout }).catch(() => undefined);
    return page?.prompts ?? [];
  }

  /** The server said its prompts changed: the listing takes the new ones (a new one is a command at once). */
  async #relistPrompts(client: Client): Promise<void> {
    const prompts = await this.#prompts(client);
    if (this.#client !== client || this.#status.state !== "ready") return;
    this.#status = { state: "ready", listing: { ...this.#status.listing, prompts } };
  }

  #onClose(client: Client): void {
    forgetLiveServer(client);
    if (this.#client !== client) return;
    this.#client = undefined;
    this.#lost = "the server stopped";
    if (!this.#closed) this.#status = { state: "failed", message: this.#lostMessage() };
  }

  /**
   * Why a request failed, said as it is: a call past its time was cancelled and the server runs on;
   * a server that stopped is started again on the next call; any other failure leaves it as it is.
   */
  async #failedCall(
    client: Client,
    e: unknown,
    signal: AbortSignal,
    request: { what: string; again: boolean },
  ): Promise<string> {
    if (signal.aborted) return "the call was interrupted";
    const sdk = this.#sdk;
    if (sdk !== undefined && e instanceof sdk.McpError && e.code === sdk.ErrorCode.RequestTimeout)
      return this.#withStderr(
        `MCP server '${this.spec.name}' did not answer ${request.what} within ${this.cx.timeoutMs / 1000} s, so the call was cancelled (the server goes on running)`,
      );
    const message =
      (sdk && signInFailure(e, this.spec.name, sdk)) ?? (await this.#describe(e, "failed during the call"));
    if (this.#client !== client) {
      this.#status = { state: "failed", message };
      return `${message}; it will be started again on the next call`;
    }
    return request.again
      ? `${message} (after it had answered 404 for the session, a new session was started and the call sent again)`
      : message;
  }

  async #describe(e: unknown, what: string): Promise<string> {
    // Let the last of a dying process's stderr arrive before it is quoted.
    await new Promise((resolve) => setImmediate(resolve));
    const why = e instanceof Error ? e.message : String(e);
    return this.#withStderr(`MCP server '${this.spec.name}' ${what}: ${why}`);
  }

  #withStderr(message: string): string {
    const tail = this.#stderr.text();
    return `${message}${tail ? `\nits stderr ended with:\n${tail}` : ""}`;
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
