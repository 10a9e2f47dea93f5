import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import {
  type ClientContext,
  client,
  ndJsonStream,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
} from "@agentclientprotocol/sdk";
import { REPO_ROOT } from "./fixtures.js";

const require = createRequire(import.meta.url);

/** The adapter editors start to reach Claude Code (its `bin`). */
export const ADAPTER = path.join(
  path.dirname(require.resolve("@agentclientprotocol/claude-agent-acp/package.json")),
  "dist/index.js",
);

/**
 * The Node the adapter runs on: this one. Its `engines` say `>=22`, but it runs on 20 (the suite
 * runs on each Node CI tests, so the adapter is tried on each).
 */
export const ADAPTER_NODE = process.execPath;

/** The built CLI as a user installs it: the `agentmd` command. */
export const AGENTMD_BIN = path.join(REPO_ROOT, "bin/agentmd");

/** How the editor answers `session/request_permission`: an option kind, or cancelled. */
export type PermissionPolicy = (
  r: RequestPermissionRequest,
) => "allow_once" | "allow_always" | "reject_once" | "reject_always" | "cancelled";

export interface Editor {
  /** Every `session/update` the adapter sent, in order. */
  readonly updates: SessionNotification[];
  /** Every permission question the editor was asked. */
  readonly asked: RequestPermissionRequest[];
  /** What the adapter (and, through it, agentmd) wrote on stderr. */
  stderr(): string;
  /** The context for calling the agent: `initialize`, `session/new`, `session/prompt`, ... */
  readonly agent: ClientContext;
  /** Ends the adapter: its stdin closed, the process awaited. */
  close(): Promise<void>;
}

/**
 * An editor: `claude-agent-acp` started with `CLAUDE_CODE_EXECUTABLE` naming the
 * built `agentmd`, driven over ACP by `@agentclientprotocol/sdk`'s client, as Zed drives it.
 */
export async function startEditor(
  options: { cwd: string; env: Record<string, string | undefined>; permission?: PermissionPolicy },
  op: (editor: Editor) => Promise<void>,
): Promise<void> {
  const child: ChildProcess = spawn(ADAPTER_NODE, [ADAPTER], {
    cwd: options.cwd,
    env: { ...options.env, CLAUDE_CODE_EXECUTABLE: AGENTMD_BIN },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  const updates: SessionNotification[] = [];
  const asked: RequestPermissionRequest[] = [];
  const policy = options.permission ?? (() => "reject_once");
  const app = client({ name: "test-editor" })
    .onNotification("session/update", ({ params }) => {
      updates.push(params);
    })
    .onRequest("session/request_permission", ({ params }): RequestPermissionResponse => {
      asked.push(params);
      const kind = policy(params);
      if (kind === "cancelled") return { outcome: { outcome: "cancelled" } };
      const option = params.options.find((o) => o.kind === kind);
      if (!option) throw new Error(`no ${kind} option among ${JSON.stringify(params.options)}`);
      return { outcome: { outcome: "selected", optionId: option.optionId } };
    });
  const stdin = child.stdin;
  const stdout = child.stdout;
  if (!stdin || !stdout) throw new Error("the adapter has no pipes");
  const stream = ndJsonStream(
    Writable.toWeb(stdin) as WritableStream<Uint8Array>,
    Readable.toWeb(stdout) as ReadableStream<Uint8Array>,
  );
  try {
    await app.connectWith(stream, async (agent) => {
      await op({
        updates,
        asked,
        agent,
        stderr: () => stderr,
        close: async () => {
          stdin.end();
          await exited;
        },
      });
    });
  } catch (e) {
    throw new Error(`${(e as Error).message}\n--- the adapter's stderr ---\n${stderr}`, { cause: e });
  } finally {
    stdin.end();
    if (child.exitCode === null) child.kill();
    await exited;
  }
}
