import type { ChildProcess } from "node:child_process";
import { EventEmitter } from "node:events";
import { PassThrough } from "node:stream";
import type { AgentContext, EnvVariable, SessionUpdate, TerminalHandle } from "@agentclientprotocol/sdk";
import type { RunEvent } from "../../loop/events.js";
import type { SpawnProcess } from "../../shared/run-process.js";

/** Bash's commands in the editor's terminals, and which call each terminal shows. */
export interface EditorTerminals {
  /** Starts a command in a new editor terminal, in the shape of `child_process.spawn`. */
  readonly spawn: SpawnProcess;
  /** The terminal of each Bash call that ran in one. */
  readonly ofCall: ReadonlyMap<string, string>;
  /** Watches the run's events: a Bash call's command is matched to the terminal that runs it. */
  observe(event: RunEvent): void;
  /** Kills and releases the terminals still open. */
  close(): Promise<void>;
}

/** Output an editor terminal keeps for the model (the Bash tool cuts it shorter). */
const OUTPUT_LIMIT = 1_000_000;

/**
 * When the editor offers terminals, Bash runs its command in one (`terminal/create`), shown in the
 * call as it runs; its output and exit status come back as a process's would (`terminal/output`,
 * `terminal/wait_for_exit`), a cancel or a timeout kills it (`terminal/kill`), and it is released
 * once done. Only a call the lists allowed (and the sandbox wraps, when it is on) gets here.
 */
export function editorTerminals(
  client: AgentContext,
  sessionId: string,
  send: (update: SessionUpdate) => void,
): EditorTerminals {
  const ofCall = new Map<string, string>();
  const waiting = new Map<string, string[]>();
  const open = new Set<TerminalHandle>();
  const spawn: SpawnProcess = (command, args, options) => {
    const line = args.at(-1) ?? "";
    const callId = waiting.get(line)?.shift();
    const child = Object.assign(new EventEmitter(), {
      stdout: new PassThrough(),
      stderr: new PassThrough(),
      stdin: null,
      pid: undefined,
    });
    const started = client.createTerminal({
      sessionId,
      command,
      args,
      ...(options.cwd !== undefined && { cwd: String(options.cwd) }),
      env: changedEnv(options.env),
      outputByteLimit: OUTPUT_LIMIT,
    });
    const kill = () => {
      void started.then((t) => t.kill()).catch(() => {});
      return true;
    };
    started.then(
      async (terminal) => {
        open.add(terminal);
        if (callId) {
          ofCall.set(callId, terminal.id);
          send({
            sessionUpdate: "tool_call_update",
            toolCallId: callId,
            status: "in_progress",
            content: [{ type: "terminal", terminalId: terminal.id }],
          });
        }
        try {
          const exit = await terminal.waitForExit();
          const out = await terminal.currentOutput();
          child.stdout.once("end", () => child.emit("close", exit.exitCode ?? null, exit.signal ?? null));
          child.emit("exit", exit.exitCode ?? null, exit.signal ?? null);
          child.stderr.end();
          child.stdout.end(out.output);
        } catch (e) {
          child.emit("error", e);
        } finally {
          open.delete(terminal);
          await terminal.release().catch(() => {});
        }
      },
      (e: unknown) => child.emit("error", e instanceof Error ? e : new Error(String(e))),
    );
    return Object.assign(child, { kill }) as unknown as ChildProcess;
  };
  return {
    spawn,
    ofCall,
    observe(event) {
      if (event.type !== "tool_start" || event.name !== "Bash") return;
      const command = (event.input as { command?: unknown } | null)?.command;
      if (typeof command !== "string") return;
      waiting.set(command, [...(waiting.get(command) ?? []), event.id]);
    },
    async close() {
      await Promise.all(
        [...open].map((t) =>
          t
            .kill()
            .then(() => t.release())
            .catch(() => {}),
        ),
      );
    },
  };
}

/** The variables the command's environment sets beyond this process's own (the editor's terminal has its own). */
function changedEnv(env: NodeJS.ProcessEnv | undefined): EnvVariable[] {
  if (!env) return [];
  return Object.entries(env).flatMap(([name, value]) =>
    value !== undefined && process.env[name] !== value ? [{ name, value }] : [],
  );
}
