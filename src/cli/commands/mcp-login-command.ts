import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { McpServerConfig } from "../../definitions/types.js";
import { expandConfig } from "../../mcp/expand-vars.js";
import { createMcpHub } from "../../mcp/mcp-hub.js";
import { loadMcpSdk } from "../../mcp/mcp-sdk.js";
import { NewSignIn } from "../../mcp/oauth-provider.js";
import { revokeSignIn } from "../../mcp/oauth-revoke.js";
import { changeSignIn, readSignIns, type SignIn, serverUrlKey, signInFile } from "../../mcp/oauth-store.js";
import type { McpServerSpec } from "../../mcp/server-spec.js";
import { DEFAULT_MCP_TIMEOUT_MS } from "../../shared/defaults.js";
import { WriteError } from "../../shared/errors.js";
import { trustState } from "../../trust/trust-state.js";
import type { CliIo } from "../io.js";
import { openBrowser } from "../terminal/open-browser.js";
import { projectSpecs, untrustedServers } from "./mcp-tool-names.js";
import { trustHome } from "./project-trust.js";

/** How long `mcp login` waits for the browser to come back, unless `--timeout` says otherwise. */
export const LOGIN_WAIT_MS = 300_000;

export interface McpLoginOptions {
  readonly name: string;
  readonly waitMs: number;
  readonly browser: boolean;
}

/** An HTTP server of the project, by name, with its `${VAR}`s expanded; or the sentence why not. */
function httpServer(
  io: CliIo,
  name: string,
  command: string,
): { spec: McpServerSpec; url: string; config: McpServerConfig; root: string } | string {
  const { root, specs } = projectSpecs(io);
  const spec = specs.findLast((s) => s.name === name);
  if (!spec)
    return `agentmd mcp ${command}: no MCP server named '${name}' in ${root}${specs.length ? ` (its servers: ${[...new Set(specs.map((s) => s.name))].join(", ")})` : ""}`;
  if (spec.config.type !== "http" && spec.config.type !== "sse")
    return `agentmd mcp ${command}: MCP server '${name}' is started as a command (stdio); only HTTP and SSE servers sign in`;
  const { config, missing } = expandConfig(spec.config, io.env);
  if (missing.length > 0)
    return `agentmd mcp ${command}: MCP server '${name}' needs ${missing.map((m) => `\${${m}}`).join(", ")}, which is not set`;
  try {
    return { spec, config, url: serverUrlKey(config.url ?? ""), root };
  } catch {
    return `agentmd mcp ${command}: MCP server '${name}' has no valid URL ('${config.url ?? ""}')`;
  }
}

/**
 * `agentmd mcp login NAME`: signs in to an HTTP server with OAuth (the SDK's discovery, dynamic
 * registration and PKCE), the browser coming back to a loopback address of this process. The
 * sign-in is kept for the server's exact URL. Returns the exit code.
 */
export async function runMcpLogin(options: McpLoginOptions, io: CliIo): Promise<number> {
  const found = httpServer(io, options.name, "login");
  if (typeof found === "string") return fail(io, found);
  const { spec, url, config, root } = found;
  const home = trustHome(io);
  // Its URL and headers are the project's: only a trusted folder's are sent anywhere.
  if (trustState(root, home).kind === "untrusted")
    return fail(io, untrustedServers("mcp login", root, [spec.name]));
  const state = randomBytes(24).toString("base64url");
  const loopback = await listenOnLoopback(state, options.waitMs);
  try {
    const signedIn = await signIn({ ...options, url, config, home, loopback, state }, io);
    if (signedIn !== undefined) return fail(io, `agentmd mcp login: ${options.name}: ${signedIn}`);
  } finally {
    loopback.close();
  }
  return confirm(spec, home, io);
}

/** The sign-in itself; a sentence when it failed. */
async function signIn(
  o: McpLoginOptions & {
    url: string;
    config: McpServerConfig;
    home: string;
    loopback: Loopback;
    state: string;
  },
  io: CliIo,
): Promise<string | undefined> {
  const sdk = await loadMcpSdk();
  let asked = false;
  const provider = new NewSignIn(o.home, o.url, o.name, o.loopback.redirectUrl, o.state, (at) => {
    asked = true;
    io.stdout.write(
      `To sign in to MCP server '${o.name}', open this address in a browser:\n\n  ${at.href}\n\n`,
    );
    if (o.browser) openBrowser(at.href, io.env);
  });
  const requestInit = o.config.headers ? { headers: { ...o.config.headers } } : {};
  const target = new URL(o.url);
  const transport =
    o.config.type === "sse"
      ? new sdk.SSEClientTransport(target, { authProvider: provider, requestInit })
      : new sdk.StreamableHTTPClientTransport(target, { authProvider: provider, requestInit });
  const client = new sdk.Client({ name: "agentmd", version: "0.1.0" }, { capabilities: {} });
  try {
    await client.connect(transport, { timeout: DEFAULT_MCP_TIMEOUT_MS });
    await client.close();
    return "the server answered without asking for a sign-in: there is nothing to sign in to";
  } catch (e) {
    if (!asked) return `the sign-in could not start: ${(e as Error).message}`;
  }
  io.stdout.write("Waiting for the browser to come back to agentmd…\n");
  const code = await o.loopback.result;
  if (typeof code !== "string") return code.error;
  try {
    await transport.finishAuth(code);
  } catch (e) {
    return `the authorization server did not give a token: ${(e as Error).message}`;
  }
  return undefined;
}

/** Starts the server with the new sign-in, as a run would, and says what it offers. */
async function confirm(spec: McpServerSpec, home: string, io: CliIo): Promise<number> {
  const hub = createMcpHub({ timeoutMs: DEFAULT_MCP_TIMEOUT_MS, cwd: io.cwd, env: io.env, home });
  try {
    const r = await hub.connection(spec).start();
    if (!r.ok) return fail(io, `agentmd mcp login: signed in, but ${r.message.split("\n")[0]}`);
    const n = r.listing.tools.length;
    io.stdout.write(
      `Signed in to MCP server '${spec.name}': ${n} tool${n === 1 ? "" : "s"}. The sign-in is kept in ${signInFile(home)}, for ${spec.config.url} only.\n`,
    );
    return 0;
  } finally {
    await hub.close();
  }
}

/**
 * `agentmd mcp logout NAME`: forgets the sign-in kept for the URL the project gives NAME, or, when
 * the project has no such server, every sign-in made under that name. The tokens are first revoked
 * at the authorization server that issued them, when its metadata names a revocation endpoint; a
 * revocation that fails is said in one line, and the sign-in is forgotten all the same.
 */
export async function runMcpLogout(name: string, io: CliIo): Promise<number> {
  const home = trustHome(io);
  const found = httpServer(io, name, "logout");
  let urls: string[];
  try {
    const kept = readSignIns(home);
    urls =
      typeof found === "string"
        ? Object.keys(kept).filter((u) => kept[u]?.name === name)
        : Object.keys(kept).filter((u) => u === found.url);
    const revoked = await Promise.all(urls.map((u) => revokeSignIn(kept[u] as SignIn)));
    for (const problem of revoked)
      if (problem !== undefined)
        io.stderr.write(
          `agentmd mcp logout: ${name}: ${problem}; the sign-in is forgotten here all the same\n`,
        );
    for (const url of urls) changeSignIn(home, url, () => undefined);
  } catch (e) {
    if (e instanceof WriteError) return fail(io, `agentmd mcp logout: ${e.message}`);
    throw e;
  }
  if (urls.length === 0) {
    const where = typeof found === "string" ? "" : ` (${found.url})`;
    io.stdout.write(`MCP server '${name}'${where} was not signed in: nothing to forget\n`);
    return 0;
  }
  for (const url of urls) io.stdout.write(`Signed out of MCP server '${name}' (${url})\n`);
  return 0;
}

function fail(io: CliIo, message: string): number {
  io.stderr.write(`${message}\n`);
  return 1;
}

interface Loopback {
  readonly redirectUrl: string;
  /** The authorization code the browser brought back with this sign-in's state, or why none came. */
  readonly result: Promise<string | { error: string }>;
  close(): void;
}

/**
 * A server on 127.0.0.1 (a port the system picks) for the browser's redirect back to agentmd: the
 * first redirect that carries `state` settles `result`; any other is turned away.
 */
async function listenOnLoopback(state: string, waitMs: number): Promise<Loopback> {
  let deliver: (r: string | { error: string }) => void = () => {};
  const result = new Promise<string | { error: string }>((resolve) => {
    deliver = resolve;
  });
  const server = http.createServer((req, res) => {
    const at = new URL(req.url ?? "/", "http://127.0.0.1");
    if (at.pathname !== "/callback") return void res.writeHead(404).end();
    const answer = (status: number, text: string) =>
      res.writeHead(status, { "content-type": "text/plain; charset=utf-8" }).end(`agentmd: ${text}\n`);
    if (at.searchParams.get("state") !== state)
      return answer(400, "this is not the sign-in agentmd is waiting for");
    const error = at.searchParams.get("error");
    const code = at.searchParams.get("code");
    if (error !== null) {
      const why = at.searchParams.get("error_description");
      answer(400, "the sign-in was refused; see the terminal");
      return deliver({ error: `the authorization server refused: ${error}${why ? ` (${why})` : ""}` });
    }
    if (!code) return answer(400, "no authorization code came back");
    answer(200, "signed in; you can close this page and go back to the terminal");
    deliver(code);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const timer = setTimeout(
    () => deliver({ error: `no sign-in came back within ${Math.round(waitMs / 1000)} s` }),
    waitMs,
  );
  return {
    redirectUrl: `http://127.0.0.1:${port}/callback`,
    result,
    close() {
      clearTimeout(timer);
      server.closeAllConnections();
      server.close();
    },
  };
}
