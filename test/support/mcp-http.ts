import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { buildServer } from "./mcp/servers.mjs";

export interface HttpMcpServer {
  /** e.g. `http://127.0.0.1:PORT/mcp` (streamable HTTP) or `…/sse` (SSE) */
  readonly url: string;
  /** Every request's `authorization` header, in order. */
  readonly authorizations: (string | undefined)[];
  close(): Promise<void>;
}

/**
 * A test MCP server (see mcp/servers.mjs) over HTTP on 127.0.0.1, in this process: streamable HTTP
 * (stateless: one server and transport per request, as the SDK's example does) or SSE.
 */
export async function startHttpMcpServer(kind: string, transport: "http" | "sse"): Promise<HttpMcpServer> {
  const authorizations: (string | undefined)[] = [];
  const sockets = new Set<Socket>();
  const sse = new Map<string, SSEServerTransport>();
  const server = http.createServer((req, res) => {
    authorizations.push(req.headers.authorization);
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const fail = () => {
      if (!res.headersSent) res.writeHead(500).end();
    };
    if (transport === "http" && url.pathname === "/mcp") {
      const t = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      const s = buildServer(kind);
      res.on("close", () => {
        void t.close();
        void s.close();
      });
      s.connect(t)
        .then(() => t.handleRequest(req, res))
        .catch(fail);
    } else if (transport === "sse" && req.method === "GET" && url.pathname === "/sse") {
      const t = new SSEServerTransport("/messages", res);
      sse.set(t.sessionId, t);
      res.on("close", () => sse.delete(t.sessionId));
      buildServer(kind).connect(t).catch(fail);
    } else if (transport === "sse" && req.method === "POST" && url.pathname === "/messages") {
      const t = sse.get(url.searchParams.get("sessionId") ?? "");
      if (t) t.handlePostMessage(req, res).catch(fail);
      else res.writeHead(404).end();
    } else res.writeHead(404).end();
  });
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/${transport === "http" ? "mcp" : "sse"}`,
    authorizations,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

export interface RestartableHttpMcpServer {
  readonly url: string;
  /** How many sessions clients have started (one `initialize` each). */
  sessions(): number;
  /** Forgets every session, as a server process that restarted does: their ids now get 404. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A test MCP server over streamable HTTP with sessions (the SDK's stateful mode: one server and
 * transport per session, found by its `mcp-session-id`). A request with an id it does not know is
 * answered 404 "Session not found", as the specification asks of a server that ended a session.
 */
export async function startRestartableHttpMcpServer(kind: string): Promise<RestartableHttpMcpServer> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  let started = 0;
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    const id = req.headers["mcp-session-id"];
    const fail = () => {
      if (!res.headersSent) res.writeHead(500).end();
    };
    if (typeof id === "string") {
      const t = sessions.get(id);
      if (t) t.handleRequest(req, res).catch(fail);
      else
        res.writeHead(404, { "content-type": "application/json" }).end(
          JSON.stringify({
            jsonrpc: "2.0",
            error: { code: -32001, message: "Session not found" },
            id: null,
          }),
        );
      return;
    }
    const t = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => {
        started++;
        sessions.set(sid, t);
      },
    });
    buildServer(kind)
      .connect(t)
      .then(() => t.handleRequest(req, res))
      .catch(fail);
  });
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const forget = async () => {
    const open = [...sessions.values()];
    sessions.clear();
    await Promise.all(open.map((t) => t.close()));
  };
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    sessions: () => started,
    restart: forget,
    close: async () => {
      await forget();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
