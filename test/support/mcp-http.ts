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
