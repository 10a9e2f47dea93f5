import { execFile } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { RunEvent } from "../../src/loop/events.js";
import { ZERO_USAGE } from "../../src/model/models.js";
import { hopTree } from "../../src/view/hop-tree.js";
import { sessionPage } from "../../src/view/session-page.js";
import { startViewServer, type ViewServer } from "../../src/view/view-server.js";
import { tempDir } from "../support/fixtures.js";
import { XSS } from "../support/view-session.js";

const base = (runId: string, depth = 0) => ({ runId, depth });
const start = (runId: string, depth = 0, parentToolUseId?: string): RunEvent => ({
  ...base(runId, depth),
  type: "run_start",
  sessionId: "s",
  agent: depth === 0 ? "main" : "helper",
  model: "m",
  tools: [],
  ...(parentToolUseId && { parentRunId: "main", parentToolUseId }),
});
const end = (runId: string, costUsd: number, depth = 0): RunEvent => ({
  ...base(runId, depth),
  type: "run_end",
  outcome: "done",
  text: "",
  turns: 1,
  usage: ZERO_USAGE,
  costUsd,
  ms: 5,
});
const toolEnd = (id: string, decision: "allowed" | "denied", content = ""): RunEvent => ({
  ...base("main"),
  type: "tool_end",
  id,
  name: "Bash",
  decision,
  isError: decision === "denied",
  content,
  ms: 3,
  permission: { verdict: decision, rule: "Bash(git push:*)", at: "agent.md:3" },
});

/** A session: a prompt, a Task call whose subagent ran, a denied call, a retry and a compaction. */
const EVENTS: RunEvent[] = [
  start("main"),
  { ...base("main"), type: "user_message", content: "go" },
  { ...base("main"), type: "turn_start", turn: 1 },
  { ...base("main"), type: "retry", attempt: 1, reason: "overloaded", delayMs: 500 },
  { ...base("main"), type: "tool_start", id: "t1", name: "Task", input: { subagent_type: "helper" } },
  start("sub", 1, "t1"),
  { ...base("sub", 1), type: "usage", turn: 1, usage: { ...ZERO_USAGE, input_tokens: 10 }, costUsd: 0.5 },
  end("sub", 0.5, 1),
  {
    ...base("main"),
    type: "tool_end",
    id: "t1",
    name: "Task",
    decision: "allowed",
    isError: false,
    content: "ok",
    ms: 9,
  },
  { ...base("main"), type: "tool_start", id: "t2", name: "Bash", input: { command: "git push" } },
  toolEnd("t2", "denied", XSS),
  { ...base("main"), type: "usage", turn: 1, usage: ZERO_USAGE, costUsd: 0.25 },
  { ...base("main"), type: "compaction", summary: "so far", kept: 0, tokensBefore: 900 },
  end("main", 0.75),
];

describe("a session's hop tree", () => {
  it("puts each subagent under the call that started it, and counts denials, retries and compactions", () => {
    const tree = hopTree(EVENTS);
    expect(tree.roots).toHaveLength(1);
    const turn = tree.roots[0]?.entries.find((e) => e.kind === "turn");
    const calls = turn?.kind === "turn" ? turn.turn.entries.filter((e) => e.kind === "call") : [];
    expect(calls.map((c) => c.kind === "call" && c.call.name)).toEqual(["Task", "Bash"]);
    const task = calls[0]?.kind === "call" ? calls[0].call : undefined;
    expect(task?.children.map((h) => [h.kind, h.agent, h.end?.costUsd])).toEqual([
      ["subagent", "helper", 0.5],
    ]);
    expect(tree.denials.map((c) => c.id)).toEqual(["t2"]);
    expect([tree.calls, tree.retries, tree.compactions]).toEqual([2, 1, 1]);
  });

  it("says a session whose run has no end is running while held, interrupted otherwise", () => {
    const cut = EVENTS.slice(0, 6);
    expect(sessionPage({ id: "s", source: "local", events: cut, skipped: 0, live: true }).state).toBe(
      "running",
    );
    expect(sessionPage({ id: "s", source: "local", events: cut, skipped: 0, live: false }).state).toBe(
      "interrupted",
    );
    const page = sessionPage({ id: "s", source: "local", events: EVENTS, skipped: 0, live: false });
    expect(page.state).toBe("done");
    expect(page.denials).toEqual([
      { text: "Bash git push — denied by Bash(git push:*) at agent.md:3", node: "c:t2" },
    ]);
    expect(page.facts).toContainEqual(["cost", "$0.75"]);
  });
});

describe("the view's server", () => {
  let dir: string;
  let cleanup: () => void;
  let server: ViewServer;
  beforeEach(async () => {
    ({ dir, cleanup } = tempDir());
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, "s1.jsonl"), EVENTS.map((e) => `${JSON.stringify(e)}\n`).join(""));
    server = await startViewServer({ port: 0, sessionsDir: dir, project: dir, pollMs: 20 });
  });
  afterEach(async () => {
    await server.close();
    cleanup();
  });

  /** The token of the printed address, and how a request carries it (as the page's cookie by default). */
  const tokenOf = () => new URL(server.url).searchParams.get("token") ?? "";
  const cookie = (token = tokenOf()) => `agentmd-view-${new URL(server.url).port}=${token}`;

  /** A request with the Host header given (fetch would not let a test set it). */
  const get = (
    pathname: string,
    host?: string,
    method = "GET",
    headers: http.OutgoingHttpHeaders = { cookie: cookie() },
  ) =>
    new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
      const url = new URL(pathname, new URL(server.url).origin);
      const req = http.request(url, { method, headers: { ...headers, ...(host && { host }) } }, (res) => {
        let body = "";
        res.setEncoding("utf8").on("data", (d: string) => {
          body += d;
          if (res.headers["content-type"]?.startsWith("text/event-stream") && body.includes("\n\n"))
            res.destroy();
        });
        res.on("close", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      });
      req.on("error", reject);
      req.end();
    });

  it("listens on the loopback address only, and refuses a Host header that is not it (DNS rebinding)", async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{43}$/);
    const port = new URL(server.url).port;
    expect((await get("/api/sessions", `evil.example:${port}`)).status).toBe(403);
    expect((await get("/api/sessions", "127.0.0.1")).status).toBe(403);
    expect((await get("/", `localhost:${port}`)).status).toBe(200);
    expect((await get("/", undefined, "POST")).status).toBe(405);
  });

  const ROUTES = [
    "/",
    "/app.js",
    "/app.css",
    "/favicon.ico",
    "/api/config",
    "/api/sessions",
    "/api/sessions/live",
    "/api/session/local/s1",
    "/api/session/local/s1/live",
    "/api/batches",
    "/nothing",
  ];

  it("answers only requests that hold the printed address's token: every route refuses the others with 401 and nothing else", async () => {
    const wrong = "x".repeat(tokenOf().length);
    for (const route of ROUTES) {
      for (const headers of [
        {},
        { cookie: cookie(wrong) },
        { cookie: `agentmd-view-1=${tokenOf()}` },
        { authorization: `Bearer ${wrong}` },
      ]) {
        const r = await get(route, undefined, "GET", headers);
        expect([route, headers, r.status, r.body]).toEqual([
          route,
          headers,
          401,
          "agentmd view answers only at the address it printed (with its token)\n",
        ]);
        expect(r.headers["set-cookie"]).toBeUndefined();
      }
      const guessed = await get(`${route}?token=${wrong}`, undefined, "GET", {});
      expect([route, guessed.status, guessed.headers["set-cookie"]]).toEqual([route, 401, undefined]);
      expect((await get(route)).status).not.toBe(401);
      expect((await get(route, undefined, "GET", { authorization: `Bearer ${tokenOf()}` })).status).not.toBe(
        401,
      );
    }
  });

  it("keeps the printed address's token in a cookie only this site gets, and drops it from the address", async () => {
    const first = await get(`/?token=${tokenOf()}`, undefined, "GET", {});
    expect(first.status).toBe(303);
    expect(first.headers.location).toBe("/");
    const set = first.headers["set-cookie"]?.[0] ?? "";
    expect(set).toBe(`${cookie()}; HttpOnly; SameSite=Strict; Path=/`);
    const page = await get("/", undefined, "GET", { cookie: set.split(";")[0] as string });
    expect([page.status, page.body]).toEqual([200, expect.stringContaining("<html")]);
  });

  it.runIf(process.getuid?.() === 0)(
    "refuses another local user, who can reach the port but not the token",
    async () => {
      const { port } = new URL(server.url);
      const probe = `require("http").get("http://127.0.0.1:${port}/api/sessions", (r) => { let b = ""; r.on("data", (d) => (b += d)); r.on("end", () => console.log(r.statusCode, JSON.stringify(b))); }).on("error", (e) => console.log("error", e.message));`;
      const asNobody = await new Promise<string>((resolve, reject) => {
        execFile(
          "setpriv",
          ["--reuid=nobody", "--regid=nogroup", "--clear-groups", process.execPath, "-e", probe],
          { cwd: "/", timeout: 30_000 },
          (e, out) => (e ? reject(e) : resolve(out)),
        );
      });
      expect(asNobody.trim()).toBe(
        `401 ${JSON.stringify("agentmd view answers only at the address it printed (with its token)\n")}`,
      );
    },
  );

  it("sends no CORS header, and a policy that runs only its own script", async () => {
    const r = await get("/");
    expect(r.status).toBe(200);
    expect(r.headers["access-control-allow-origin"]).toBeUndefined();
    expect(r.headers["content-security-policy"]).toMatch(/default-src 'none'; script-src 'self'/);
    expect(r.body).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)/);
    const script = await get("/app.js");
    expect(script.body).toContain("startPage();");
    expect(script.body).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(/);
  });

  it("serves a session as data (markup in it stays a string), live as server-sent events", async () => {
    const rows = JSON.parse((await get("/api/sessions")).body);
    expect(rows).toMatchObject([{ id: "s1", state: "done", costUsd: 0.75, title: "go" }]);
    const page = JSON.parse((await get("/api/session/local/s1")).body);
    expect(JSON.stringify(page)).toContain(JSON.stringify(XSS).slice(1, -1));
    const live = await get("/api/session/local/s1/live");
    expect(live.headers["content-type"]).toMatch(/^text\/event-stream/);
    expect(JSON.parse(live.body.replace(/^data: /, "")).state).toBe("done");
  });

  it("answers a session that is not there, or an id that is not one, with 404", async () => {
    expect((await get("/api/session/local/none")).status).toBe(404);
    expect((await get("/api/session/local/..%2F..%2Fetc%2Fpasswd")).status).toBe(404);
    expect((await get("/api/batches")).status).toBe(404);
    expect((await get("/nothing")).status).toBe(404);
  });
});
