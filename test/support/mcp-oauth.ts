import { randomUUID } from "node:crypto";
import type { Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { OAuthRegisteredClientsStore } from "@modelcontextprotocol/sdk/server/auth/clients.js";
import { InvalidGrantError, InvalidTokenError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { requireBearerAuth } from "@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js";
import type {
  AuthorizationParams,
  OAuthServerProvider,
} from "@modelcontextprotocol/sdk/server/auth/provider.js";
import {
  getOAuthProtectedResourceMetadataUrl,
  mcpAuthRouter,
} from "@modelcontextprotocol/sdk/server/auth/router.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { OAuthClientInformationFull, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import express, { type RequestHandler } from "express";
import { buildServer } from "./mcp/servers.mjs";

export interface OAuthMcpServer {
  /** `http://127.0.0.1:PORT/mcp`: the protected MCP endpoint (the `github` test server's tools). */
  readonly url: string;
  /** `http://127.0.0.1:PORT/open`: the same tools, unprotected, on the same origin. */
  readonly openUrl: string;
  /** The `authorization` header of every request to /mcp and /open, by path, in order. */
  readonly seen: { path: string; authorization: string | undefined }[];
  /** The grant of every token request, in order: `authorization_code` or `refresh_token`. */
  readonly grants: string[];
  /** Clients registered (RFC 7591), in order. */
  readonly registered: OAuthClientInformationFull[];
  /** Seconds the access tokens issued from now on live. */
  accessTtl: number;
  /** Every access token issued, in order. */
  readonly accessTokens: string[];
  /** Forgets every access token (refresh tokens still work), as a server whose tokens were revoked. */
  revokeAccessTokens(): void;
  /** Forgets every token, refresh tokens too. */
  revokeAll(): void;
  /** Each revocation request (RFC 7009, `/revoke`), in order: its token, hint and client. */
  readonly revocations: { token: string; hint: string | undefined; client: string }[];
  /** Set: `/revoke` answers this status instead of revoking (a server that cannot revoke now). */
  revokeStatus: number | undefined;
  close(): Promise<void>;
}

/**
 * An OAuth-protected MCP server over streamable HTTP on 127.0.0.1, with its own authorization
 * server, written with the SDK's server classes: `mcpAuthRouter` (RFC 8414 and RFC 9728 metadata,
 * dynamic registration, authorize with PKCE, token) and `requireBearerAuth` on /mcp. Authorizing
 * needs no person: the authorize endpoint redirects at once to the client's redirect URI with a
 * code, as a browser would after the user agreed.
 */
export async function startOAuthMcpServer(): Promise<OAuthMcpServer> {
  const seen: OAuthMcpServer["seen"] = [];
  const grants: string[] = [];
  const clients = new Map<string, OAuthClientInformationFull>();
  const registered: OAuthClientInformationFull[] = [];
  const codes = new Map<string, { client: string; params: AuthorizationParams }>();
  const access = new Map<string, AuthInfo>();
  const refresh = new Map<string, { client: string; scopes: string[] }>();
  const accessTokens: string[] = [];
  const state: { accessTtl: number; revokeStatus: number | undefined } = {
    accessTtl: 3600,
    revokeStatus: undefined,
  };
  const revocations: OAuthMcpServer["revocations"] = [];

  const issue = (client: string, scopes: string[], resource?: URL): OAuthTokens => {
    const token = randomUUID();
    const refreshToken = randomUUID();
    access.set(token, {
      token,
      clientId: client,
      scopes,
      expiresAt: Math.floor(Date.now() / 1000) + state.accessTtl,
      ...(resource && { resource }),
    });
    refresh.set(refreshToken, { client, scopes });
    accessTokens.push(token);
    return {
      access_token: token,
      token_type: "bearer",
      expires_in: state.accessTtl,
      refresh_token: refreshToken,
      scope: scopes.join(" "),
    };
  };

  const clientsStore: OAuthRegisteredClientsStore = {
    getClient: (id) => clients.get(id),
    registerClient: (client) => {
      const full = client as OAuthClientInformationFull;
      clients.set(full.client_id, full);
      registered.push(full);
      return full;
    },
  };
  const provider: OAuthServerProvider = {
    clientsStore,
    async authorize(client, params, res) {
      const code = randomUUID();
      codes.set(code, { client: client.client_id, params });
      const back = new URL(params.redirectUri);
      back.searchParams.set("code", code);
      if (params.state !== undefined) back.searchParams.set("state", params.state);
      res.redirect(back.href);
    },
    async challengeForAuthorizationCode(_client, code) {
      const c = codes.get(code);
      if (!c) throw new InvalidGrantError("unknown code");
      return c.params.codeChallenge;
    },
    async exchangeAuthorizationCode(client, code) {
      const c = codes.get(code);
      if (!c || c.client !== client.client_id) throw new InvalidGrantError("unknown code");
      codes.delete(code);
      grants.push("authorization_code");
      return issue(client.client_id, c.params.scopes ?? [], c.params.resource);
    },
    async exchangeRefreshToken(client, refreshToken) {
      const r = refresh.get(refreshToken);
      if (!r || r.client !== client.client_id) throw new InvalidGrantError("unknown refresh token");
      refresh.delete(refreshToken);
      grants.push("refresh_token");
      return issue(client.client_id, r.scopes);
    },
    async revokeToken(client, request) {
      revocations.push({ token: request.token, hint: request.token_type_hint, client: client.client_id });
      access.delete(request.token);
      refresh.delete(request.token);
    },
    async verifyAccessToken(token) {
      const info = access.get(token);
      if (!info) throw new InvalidTokenError("unknown token");
      return info;
    },
  };

  const app = express();
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  const mcpUrl = new URL(`${base}/mcp`);
  app.use((req, _res, next) => {
    if (req.path.startsWith("/mcp") || req.path.startsWith("/open"))
      seen.push({ path: req.originalUrl, authorization: req.headers.authorization });
    next();
  });
  app.use((req, res, next) => {
    if (req.path !== "/revoke" || state.revokeStatus === undefined) return next();
    res.writeHead(state.revokeStatus, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: "temporarily_unavailable" }));
  });
  app.use(mcpAuthRouter({ provider, issuerUrl: new URL(base), resourceServerUrl: mcpUrl }));
  const serve: RequestHandler = (req, res) => {
    const t = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    const s = buildServer("github");
    res.on("close", () => {
      void t.close();
      void s.close();
    });
    s.connect(t)
      .then(() => t.handleRequest(req, res))
      .catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
      });
  };
  const bearer = requireBearerAuth({
    verifier: provider,
    resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl),
  });
  app.all("/mcp", bearer, serve);
  app.all("/open", serve);

  const sockets = new Set<Socket>();
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  return {
    url: mcpUrl.href,
    openUrl: `${base}/open`,
    seen,
    grants,
    registered,
    get accessTtl() {
      return state.accessTtl;
    },
    set accessTtl(s: number) {
      state.accessTtl = s;
    },
    revocations,
    get revokeStatus() {
      return state.revokeStatus;
    },
    set revokeStatus(s: number | undefined) {
      state.revokeStatus = s;
    },
    accessTokens,
    revokeAccessTokens: () => access.clear(),
    revokeAll: () => {
      access.clear();
      refresh.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * Does what a browser does with the address `mcp login` printed: opens it, follows the
 * authorization server's redirect to agentmd's loopback address, and returns that page's answer.
 */
export async function followSignIn(output: string): Promise<{ status: number; text: string }> {
  const at = output.match(/^ {2}(http\S+)$/m)?.[1];
  if (!at) throw new Error(`no sign-in address in:\n${output}`);
  const r = await fetch(at);
  return { status: r.status, text: await r.text() };
}
