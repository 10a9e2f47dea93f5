import path from "node:path";
import type { PermissionOptions } from "../invocation/approvals.js";
import type { RunEvent, RunResult } from "../loop/events.js";
import { SessionError } from "../loop/transcript.js";
import { loadRecording, recordedInput } from "../model/record-replay.js";
import { type CliIo, styleFor } from "./io.js";
import { openRunner } from "./open-runner.js";
import { createTextRenderer, printable, summary } from "./render.js";

export const RUN_HELP = `Usage: agentmd run [PROMPT | /name args] [options]

Runs the main agent (agent.md) once on PROMPT (or on standard input when no PROMPT
is given), streaming its text, one line per tool call with its decision, and a summary.
'/name args' runs a command or skill as typed in the REPL.

Options:
  --agent NAME         run the subagent NAME instead (its tools: main's ∩ its own)
  --model M            a model id or alias (sonnet, opus, haiku); overrides agent.md
  --max-iterations N   stop after N model turns (default: agent.md's maxIterations, else 50)
  --output FORMAT      text (default), json (one result object at the end), or
                       stream-json (every event as one JSON line)
  --record FILE        store every model exchange in FILE (JSONL)
  --replay FILE        answer from a recording: no network, no API key
  --resume ID          continue a session (see .agentmd/sessions/)
  --cwd DIR            the working folder for tools (default: the current folder)
  --sandbox            run Bash commands inside bubblewrap: writable only where the
                       lists allow writing, Read denies hidden, no network but
                       WebFetch's hosts (as agent.md's 'sandbox: true')
  --permission-mode M  default, acceptEdits, plan or bypassPermissions (over the
                       settings' permissions.defaultMode)
  --allowedTools R     pre-approve calls, e.g. 'Bash(npm test:*) Edit' (never beyond
                       agent.md's list); also --allowed-tools
  --disallowedTools R  deny calls at every hop, e.g. 'Bash(git push:*)'
  -h, --help           show this help

Needs ANTHROPIC_API_KEY (or --replay). The project is the nearest folder holding
agent.md or .claude/; its .claude/settings.json (and settings.local.json,
~/.claude/settings.json) apply. A call that needs a user's approval is denied,
saying how to allow it. Transcripts are written to .agentmd/sessions/<id>.jsonl.

Example:
  agentmd run --allowedTools 'Bash(npm test:*)' "run the tests and fix what fails"

Exit status: 0 done, 1 error (or a limit reached), 2 refused by permissions,
130 aborted (Ctrl-C).`;

export interface RunCommandOptions {
  readonly prompt?: string;
  readonly model?: string;
  readonly maxIterations?: number;
  readonly output: "text" | "json" | "stream-json";
  readonly record?: string;
  readonly replay?: string;
  readonly resume?: string;
  readonly cwd?: string;
  /** Run this subagent instead of the main agent. */
  readonly agent?: string;
  /** `--sandbox`. */
  readonly sandbox?: boolean;
  /** `--permission-mode`, `--allowedTools`, `--disallowedTools`. */
  readonly permissions?: Omit<PermissionOptions, "approve">;
}

export interface RunIo extends CliIo {
  readonly stdin?: AsyncIterable<string | Buffer> & { isTTY?: boolean };
  /** Where Ctrl-C comes from; the CLI passes the process. */
  readonly onInterrupt?: (handler: () => void) => () => void;
}

/** Runs `agentmd run`; returns the exit code. */
export async function runRun(options: RunCommandOptions, io: RunIo): Promise<number> {
  // A replay without a prompt replays the recorded one (and never waits on standard input).
  const prompt = options.prompt ?? recordedPrompt(options.replay, io.cwd) ?? (await readStdin(io));
  if (prompt === undefined || prompt.trim() === "") {
    io.stderr.write("agentmd run: no prompt: give one as an argument or on standard input\n");
    return 2;
  }
  const runner = await openRunner(options, io);
  if (!runner) return 1;
  const controller = new AbortController();
  let interrupts = 0;
  const unhook = io.onInterrupt?.(() => {
    interrupts++;
    if (interrupts === 1) controller.abort();
    else process.exit(130);
  });
  const started = performance.now();
  const style = styleFor(io.stdout, io.env);
  const render = options.output === "text" ? createTextRenderer(io.stdout, style) : undefined;
  let result: RunResult;
  try {
    const handle = runner.run(prompt, {
      signal: controller.signal,
      ...(options.resume && { resume: options.resume }),
      ...(options.agent && { agent: options.agent }),
    });
    for await (const event of handle) {
      if (render) render(event);
      else if (options.output === "stream-json") io.stdout.write(`${JSON.stringify(event)}\n`);
    }
    result = await handle.result();
  } catch (e) {
    if (e instanceof SessionError) {
      io.stderr.write(`agentmd: ${printable(e.message)}\n`);
      return 1;
    }
    throw e;
  } finally {
    unhook?.();
    // MCP servers the run started stop with it (their open pipes would keep the process alive).
    await runner.close();
  }
  if (options.output === "json") {
    const { messages: _messages, ...rest } = result;
    // An unknown price is no cost of 0.
    const shown = rest.costUnknown ? { ...rest, costUsd: null } : rest;
    io.stdout.write(`${JSON.stringify(shown, null, 2)}\n`);
  } else if (options.output === "text") {
    io.stdout.write(`${summary(result, performance.now() - started, style)}\n`);
    // Only a session whose transcript was written can be continued.
    if (result.transcript)
      io.stdout.write(
        `${style.dim(`session ${result.sessionId} (resume with --resume ${result.sessionId})`)}\n`,
      );
  }
  return exitCode(result);
}

export function exitCode(r: RunResult): number {
  switch (r.outcome) {
    case "done":
      return 0;
    case "aborted":
      return 130;
    case "refused":
      return 2;
    default:
      return 1;
  }
}

async function readStdin(io: RunIo): Promise<string | undefined> {
  if (!io.stdin || io.stdin.isTTY) return undefined;
  let text = "";
  for await (const chunk of io.stdin) text += chunk.toString();
  return text.trim() === "" ? undefined : text;
}

/** A replay without a prompt replays the recorded one. */
function recordedPrompt(replay: string | undefined, cwd: string): string | undefined {
  if (!replay) return undefined;
  try {
    const file = path.resolve(cwd, replay);
    return recordedInput(file) ?? loadRecording(file)[0]?.request.prompt;
  } catch {
    return undefined;
  }
}

export type { RunEvent };
