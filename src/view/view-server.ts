import { randomBytes, timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { SessionError } from "../loop/transcript.js";
import { localRows, localSession, localStamp } from "./local-sessions.js";
import { clientScript } from "./page/client-script.js";
import { PAGE_CSS, PAGE_HTML } from "./page/page-shell.js";
import type { QueueView } from "./queue-view.js";
import { sessionPage } from "./session-page.js";
import type { SessionRow } from "./view-types.js";

export interface ViewServerOptions {
  /** 0: a free port. */
  readonly port: number;
  /** The project's sessions folder. */
  readonly sessionsDir: string;
  /** Shown in the page's header. */
  readonly project: string;
  /** With `--redis`: the queue whose batches the page shows. */
  readonly queue?: QueueView;
  /** How often a live view looks for changes (default 500 ms). */
  readonly pollMs?: number;
}

export interface ViewServer {
  /** `http://127.0.0.1:PORT/?token=…`: the only way in (the token is kept in a cookie from there). */
  readonly url: string;
  /** Ends every open stream and stops listening. Contract: idempotent. */
  close(): Promise<void>;
}

const HOST = "127.0.0.1";

/**
 * Served on the loopback address only, to GET requests whose Host header names it (a page of
 * another site that rebinds its name to 127.0.0.1 sends its own name, and is refused), with no
 * CORS header, and a content security policy that runs only the page's own script.
 */
const HEADERS = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cross-origin-resource-policy": "same-origin",
  "cross-origin-opener-policy": "same-origin",
  "cache-control": "no-store",
};

type Live = { stamp: () => Promise<string>; read: () => Promise<unknown> };

/** Starts the view's server. Rejects when the port cannot be had (in use, not allowed). */
export async function startViewServer(o: ViewServerOptions): Promise<ViewServer> {
  const script = clientScript();
  const server = http.createServer();
  const streams = new Set<() => void>();
  const token = randomBytes(32).toString("base64url");
  const rows = localRows(o.sessionsDir);
  let port = 0;
  server.on("request", (req, res) => {
    void answer(req, res).catch((e: Error) =>
      send(res, 500, "application/json", JSON.stringify({ error: e.message })),
    );
  });
  const answer = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const allowed = [`${HOST}:${port}`, `localhost:${port}`];
    if (!allowed.includes(req.headers.host ?? ""))
      return send(res, 403, "text/plain", `agentmd view answers only at http://${HOST}:${port}/\n`);
    const url = new URL(req.url ?? "/", `http://${HOST}`);
    const pass = admitted(req, url, token, port);
    if (pass === "refused")
      return send(
        res,
        401,
        "text/plain",
        "agentmd view answers only at the address it printed (with its token)\n",
      );
    if (pass === "enter") return enter(res, url, token, port);
    if (req.method !== "GET" && req.method !== "HEAD") return send(res, 405, "text/plain", "only GET\n");
    const path = url.pathname;
    if (path === "/") return send(res, 200, "text/html; charset=utf-8", PAGE_HTML);
    if (path === "/app.js") return send(res, 200, "text/javascript; charset=utf-8", script);
    if (path === "/favicon.ico") return send(res, 204, "text/plain", "");
    if (path === "/app.css") return send(res, 200, "text/css; charset=utf-8", PAGE_CSS);
    if (path === "/api/config")
      return sendJson(res, 200, { project: o.project, ...(o.queue && { queue: o.queue.name }) });
    const route = liveRoute(o, rows, path.replace(/\/live$/, ""));
    if (route === undefined) return sendJson(res, 404, { error: `no page ${path}` });
    if (path.endsWith("/live")) return stream(req, res, route, o.pollMs ?? 500, streams);
    try {
      return sendJson(res, 200, await route.read());
    } catch (e) {
      return sendJson(res, e instanceof SessionError ? 404 : 500, { error: (e as Error).message });
    }
  };
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port, HOST, () => {
      server.off("error", reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  let closed: Promise<void> | undefined;
  return {
    url: `http://${HOST}:${port}/?${TOKEN}=${token}`,
    close: () => {
      closed ??= new Promise<void>((resolve) => {
        for (const end of streams) end();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}

const TOKEN = "token";
const cookieName = (port: number) => `agentmd-view-${port}`;

/**
 * Whether a request comes from the user who started the view: it holds the token of the printed
 * address in its cookie (or as `Authorization: Bearer …`), or brings it in the address (`enter`:
 * the cookie is set and the token dropped from the address). Anything else is refused.
 */
function admitted(
  req: http.IncomingMessage,
  url: URL,
  token: string,
  port: number,
): "ok" | "enter" | "refused" {
  const given = url.searchParams.get(TOKEN);
  if (given !== null) return sameToken(given, token) ? "enter" : "refused";
  const bearer = /^Bearer (\S+)$/.exec(req.headers.authorization ?? "")?.[1];
  if (bearer !== undefined) return sameToken(bearer, token) ? "ok" : "refused";
  const name = cookieName(port);
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name && sameToken(part.slice(eq + 1).trim(), token))
      return "ok";
  }
  return "refused";
}

function sameToken(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The token arrived in the address: kept in a cookie only this site gets, and the address cleaned. */
function enter(res: http.ServerResponse, url: URL, token: string, port: number): void {
  url.searchParams.delete(TOKEN);
  res.writeHead(303, {
    ...HEADERS,
    "set-cookie": `${cookieName(port)}=${token}; HttpOnly; SameSite=Strict; Path=/`,
    location: `${url.pathname}${url.search}`,
    "content-type": "text/plain",
  });
  res.end();
}

/** The data routes: each read whole, or streamed as it changes (`…/live`). */
function liveRoute(o: ViewServerOptions, rows: () => SessionRow[], path: string): Live | undefined {
  const [, api, kind, ...rest] = path.split("/");
  if (api !== "api") return undefined;
  const arg = rest.map((p) => decodeURIComponent(p));
  const dir = o.sessionsDir;
  const q = o.queue;
  if (kind === "sessions" && arg.length === 0) {
    const read = async () => rows();
    return { stamp: async () => JSON.stringify(await read()), read };
  }
  if (kind === "session" && arg.length === 2 && arg[0] === "local") {
    const id = arg[1] as string;
    return { stamp: async () => localStamp(dir, id), read: async () => sessionPage(localSession(dir, id)) };
  }
  if (kind === "session" && arg.length === 2 && arg[0] === "queue" && q) {
    const id = arg[1] as string;
    return { stamp: () => q.stamp(id), read: async () => sessionPage(await q.session(id)) };
  }
  if (kind === "batches" && arg.length === 0 && q) {
    const read = () => q.batches();
    return { stamp: async () => JSON.stringify(await read()), read };
  }
  if (kind === "batch" && arg.length === 1 && q) {
    const name = arg[0] as string;
    const read = async () => {
      const page = await q.batch(name);
      if (!page) throw new SessionError(`no batch '${name}' on queue ${q.name}`);
      return page;
    };
    return { stamp: async () => JSON.stringify(await read()), read };
  }
  return undefined;
}

/**
 * Server-sent events: the data now, then again each time its stamp changes (looked at every
 * `everyMs`), until the page goes away or the server closes. A failure is said to the page once
 * (`problem`), and the stream ends.
 */
async function stream(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  live: Live,
  everyMs: number,
  streams: Set<() => void>,
): Promise<void> {
  res.writeHead(200, {
    ...HEADERS,
    "content-type": "text/event-stream; charset=utf-8",
    connection: "keep-alive",
  });
  let open = true;
  let wake = () => {};
  const end = () => {
    open = false;
    wake();
  };
  streams.add(end);
  req.on("close", end);
  let last = "";
  let sent = "";
  try {
    for (let beat = 0; open; beat++) {
      const stamp = await live.stamp();
      if (stamp !== last) {
        last = stamp;
        const data = JSON.stringify(await live.read());
        if (data !== sent) res.write(`data: ${data}\n\n`);
        sent = data;
      } else if (beat % 30 === 29) res.write(": still here\n\n");
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, everyMs).unref();
      });
    }
  } catch (e) {
    if (open) res.write(`event: problem\ndata: ${JSON.stringify((e as Error).message)}\n\n`);
  } finally {
    streams.delete(end);
    res.end();
  }
}

function send(res: http.ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { ...HEADERS, "content-type": type });
  res.end(body);
}

const sendJson = (res: http.ServerResponse, status: number, value: unknown) =>
  send(res, status, "application/json; charset=utf-8", JSON.stringify(value));
