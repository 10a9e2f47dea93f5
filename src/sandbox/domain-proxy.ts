import { mkdtempSync, rmSync } from "node:fs";
import type http from "node:http";
import type net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { nodeHttp, nodeNet } from "../shared/node-builtins.js";

/** A proxy the runner serves on a Unix socket, for one sandboxed command. */
export interface DomainProxy {
  /** The socket on the host; bound into the sandbox. */
  readonly socketPath: string;
  /** Stops it, cuts every connection it holds, and removes its socket. Idempotent. */
  close(): void;
}

/** Hop-by-hop headers a proxy must not pass on. */
const HOP_HEADERS = ["proxy-connection", "proxy-authorization", "connection", "keep-alive"];

/**
 * An HTTP proxy on a Unix socket in a private folder: CONNECT tunnels (HTTPS, and anything else a
 * client tunnels) and plain HTTP requests, each to a host `allows` admits; any other host gets a
 * 403 that says why. Started synchronously (a Unix socket is bound when `listen` returns), so a
 * command can use it as soon as it starts.
 */
export function startDomainProxy(allows: (host: string) => boolean): DomainProxy {
  const base = tmpdir().length > 60 ? "/tmp" : tmpdir();
  const dir = mkdtempSync(path.join(base, "agentmd-proxy-"));
  const socketPath = path.join(dir, "proxy.sock");
  const sockets = new Set<net.Socket>();
  const server = nodeHttp().createServer((req, res) => forward(req, res, allows));
  server.on("connect", (req, client: net.Socket, head: Buffer) => tunnel(req, client, head, allows));
  server.on("connection", (s: net.Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  server.on("error", () => {});
  server.listen(socketPath);
  let closed = false;
  return {
    socketPath,
    close() {
      if (closed) return;
      closed = true;
      server.close();
      for (const s of sockets) s.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const refusal = (host: string) =>
  `agentmd sandbox: ${host} is not allowed: commands reach only the hosts the run's WebFetch (or the sandbox's allowedDomains) allows\n`;

/** `CONNECT host:port`: a tunnel to an allowed host, or a 403. */
function tunnel(req: http.IncomingMessage, client: net.Socket, head: Buffer, allows: (h: string) => boolean) {
  client.on("error", () => {});
  const target = parseTarget(req.url ?? "");
  if (!target) return answer(client, 400, "agentmd sandbox: CONNECT needs host:port\n");
  if (!allows(target.host)) return answer(client, 403, refusal(target.host));
  const upstream = nodeNet().connect(target.port, target.host);
  let open = false;
  // Before the tunnel opens, a failure is the client's answer; after, it ends the tunnel.
  upstream.on("error", (e) =>
    open ? client.destroy() : answer(client, 502, `agentmd sandbox: ${target.host}: ${e.message}\n`),
  );
  upstream.once("connect", () => {
    open = true;
    client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  });
  client.once("close", () => upstream.destroy());
}

function answer(client: net.Socket, status: number, text: string): void {
  if (client.destroyed) return;
  const reason = nodeHttp().STATUS_CODES[status] ?? "Error";
  client.end(
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: text/plain\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
  );
}

/** A plain HTTP request in absolute form (`GET http://host/path`), to an allowed host. */
function forward(req: http.IncomingMessage, res: http.ServerResponse, allows: (h: string) => boolean) {
  res.on("error", () => {});
  let url: URL;
  try {
    url = new URL(req.url ?? "");
  } catch {
    res.writeHead(400, { "content-type": "text/plain" }).end("agentmd sandbox: not a proxy request\n");
    return;
  }
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (url.protocol !== "http:") {
    res
      .writeHead(400, { "content-type": "text/plain" })
      .end("agentmd sandbox: only http:// is proxied this way\n");
    return;
  }
  if (!allows(host)) {
    res.writeHead(403, { "content-type": "text/plain" }).end(refusal(host));
    return;
  }
  const headers = { ...req.headers };
  for (const h of HOP_HEADERS) delete headers[h];
  const upstream = nodeHttp().request(
    { host, port: url.port || 80, method: req.method, path: `${url.pathname}${url.search}`, headers },
    (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    },
  );
  upstream.on("error", (e) => {
    if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
    res.end(`agentmd sandbox: ${host}: ${e.message}\n`);
  });
  req.pipe(upstream);
}

/** `host:port` or `[v6]:port`. */
export function parseTarget(target: string): { host: string; port: number } | undefined {
  const m = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(target.trim());
  if (!m) return undefined;
  const port = Number(m[2]);
  return port > 0 && port < 65536 ? { host: (m[1] as string).toLowerCase(), port } : undefined;
}
