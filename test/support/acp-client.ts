import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import {
  type ClientCapabilities,
  type ClientConnection,
  client,
  ndJsonStream,
  type RequestPermissionRequest,
  type SessionNotification,
} from "@agentclientprotocol/sdk";
import { REPO_ROOT } from "./fixtures.js";

/** An editor's side of `agentmd acp`, as a test drives it: what it was sent, and how it answers. */
export interface AcpEditor {
  readonly child: ChildProcess;
  readonly connection: ClientConnection;
  /** Every `session/update`, in order. */
  readonly updates: SessionNotification[];
  /** Every permission question, in order. */
  readonly asked: RequestPermissionRequest[];
  /** The files written through the editor (`fs/write_text_file`), by path. */
  readonly written: Map<string, string>;
  /** The terminal requests the editor got (`terminal/create`, `terminal/kill`, …), by method. */
  readonly terminalCalls: string[];
  /** The updates of one session, of one kind. */
  of<K extends SessionNotification["update"]["sessionUpdate"]>(
    sessionId: string,
    kind: K,
  ): Extract<SessionNotification["update"], { sessionUpdate: K }>[];
  /** Resolves with the exit code once the agent's process has ended. */
  readonly exited: Promise<number | null>;
  stderr(): string;
}

export interface EditorOptions {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly args?: readonly string[];
  /** What the editor answers a permission question with (default: allow_once). */
  readonly answer?: (q: RequestPermissionRequest) => string;
  readonly capabilities?: ClientCapabilities;
  /** The editor's buffers: `fs/read_text_file` answers from here first. */
  readonly buffers?: ReadonlyMap<string, string>;
}

/** Starts the built CLI as `agentmd acp` (the launcher, as an editor runs it) and connects to it. */
export function startEditor(options: EditorOptions): AcpEditor {
  const child = spawn(path.join(REPO_ROOT, "bin/agentmd"), ["acp", ...(options.args ?? [])], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? "", ...options.env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  const updates: SessionNotification[] = [];
  const asked: RequestPermissionRequest[] = [];
  const written = new Map<string, string>();
  const terminalCalls: string[] = [];
  const terminals = new Map<string, { proc: ChildProcess; output: string; exit: Promise<number | null> }>();
  let next = 0;
  const terminal = (id: string) => {
    const t = terminals.get(id);
    if (!t) throw new Error(`no terminal ${id}`);
    return t;
  };
  const app = client({ name: "test editor" })
    .onNotification("session/update", ({ params }) => {
      updates.push(params);
    })
    .onRequest("session/request_permission", ({ params }) => {
      asked.push(params);
      return { outcome: { outcome: "selected", optionId: options.answer?.(params) ?? "allow_once" } };
    })
    .onRequest("fs/read_text_file", ({ params }) => ({
      content: options.buffers?.get(params.path) ?? readFileSync(params.path, "utf8"),
    }))
    .onRequest("fs/write_text_file", ({ params }) => {
      written.set(params.path, params.content);
      return {};
    })
    .onRequest("terminal/create", ({ params }) => {
      terminalCalls.push("terminal/create");
      const id = `term-${next++}`;
      const proc = spawn(params.command, params.args ?? [], {
        cwd: params.cwd ?? options.cwd,
        stdio: ["ignore", "pipe", "pipe"],
      });
      const t = { proc, output: "", exit: new Promise<number | null>((r) => proc.on("close", (c) => r(c))) };
      proc.stdout?.setEncoding("utf8").on("data", (d: string) => (t.output += d));
      proc.stderr?.setEncoding("utf8").on("data", (d: string) => (t.output += d));
      terminals.set(id, t);
      return { terminalId: id };
    })
    .onRequest("terminal/output", ({ params }) => {
      terminalCalls.push("terminal/output");
      return { output: terminal(params.terminalId).output, truncated: false };
    })
    .onRequest("terminal/wait_for_exit", async ({ params }) => {
      terminalCalls.push("terminal/wait_for_exit");
      const t = terminal(params.terminalId);
      const code = await t.exit;
      return { exitCode: code, signal: code === null ? "SIGTERM" : null };
    })
    .onRequest("terminal/kill", ({ params }) => {
      terminalCalls.push("terminal/kill");
      terminal(params.terminalId).proc.kill("SIGTERM");
      return {};
    })
    .onRequest("terminal/release", ({ params }) => {
      terminalCalls.push("terminal/release");
      terminal(params.terminalId).proc.kill("SIGKILL");
      return {};
    });
  const stdin = child.stdin;
  const stdout = child.stdout;
  if (!stdin || !stdout) throw new Error("the agent has no pipes");
  const connection = app.connect(
    ndJsonStream(
      Writable.toWeb(stdin) as WritableStream<Uint8Array>,
      Readable.toWeb(stdout) as ReadableStream<Uint8Array>,
    ),
  );
  return {
    child,
    connection,
    updates,
    asked,
    written,
    terminalCalls,
    exited,
    stderr: () => stderr,
    of: (sessionId, kind) =>
      updates
        .filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === kind)
        .map((n) => n.update) as never,
  };
}

/** `initialize` with the capabilities the editor offers. */
export function initialize(editor: AcpEditor, capabilities: ClientCapabilities = {}) {
  return editor.connection.agent.request("initialize", {
    protocolVersion: 1,
    clientCapabilities: capabilities,
  });
}
