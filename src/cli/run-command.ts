import path from "node:path";
import { findProjectRoot } from "../definitions/discover.js";
import type { Runner } from "../invocation/runner.js";
import type { RunEvent, RunResult } from "../loop/events.js";
import { newestSession } from "../loop/session-list.js";
import { SessionBusyError, SessionError, sessionsDir } from "../loop/transcript.js";
import { loadRecording, recordedInput } from "../model/record-replay.js";
import { claudeOutput } from "./claude-output.js";
import { type CliIo, styleFor } from "./io.js";
import { openRunner } from "./open-runner.js";
import { createProgress } from "./progress.js";
import { restrictedWithNotice } from "./project-trust.js";
import { createTextRenderer, printable, summary, terminalRendering } from "./render.js";
import type { SessionOptions } from "./session-flags.js";
import { forkSession } from "./stream-json/sdk-sessions.js";
import { unknownAgent, unknownSlash } from "./unknown-slash.js";
import { type WrapperOptions, withWrapper } from "./wrapper-flags.js";

export const RUN_HELP = `Usage: agentmd run [PROMPT | /name args] [options]
       agentmd -p [PROMPT] [options]

Runs the main agent (agent.md) once on PROMPT (or on standard input when no PROMPT
is given), streaming its text, one line per tool call with its decision, and a summary.
'/name args' runs a command or skill as typed in the REPL. With -p (--print), as
Claude Code's -p: the answer alone on stdout (--verbose: the run too, on stderr).

Options:
  -p, --print            Claude Code's output: the answer alone, or its message
                         shapes with --output-format json|stream-json
  --output-format F      text, json (one 'result' message) or stream-json ('system'
                         init, 'assistant', 'user' and 'result' messages, as Claude
                         Code writes them)
  --output F             agentmd's own: text (default), json (the run's result) or
                         stream-json (every agentmd event as one JSON line)
  --agent NAME           run the subagent NAME instead (its tools: main's ∩ its own)
  --model M              a model id or alias (sonnet, opus, haiku); overrides agent.md
                         and ANTHROPIC_MODEL. A bare word that is neither (sonet) is
                         refused as a typo; ids are claude-… or a provider's (with . / : @)
  --max-turns N          stop after N model turns (also --max-iterations; default:
                         agent.md's maxIterations, else 50)
  --system-prompt TEXT   instead of agent.md's body
  --append-system-prompt TEXT   after the system prompt (body, environment, memory)
  -c, --continue         continue the project's most recent session
  -r, --resume ID        continue session ID (see 'agentmd sessions')
  --permission-mode M    default, acceptEdits, plan or bypassPermissions (over the
                         settings' permissions.defaultMode)
  --allowedTools R       pre-approve calls, e.g. 'Bash(npm test:*) Edit' (never beyond
                         agent.md's list); also --allowed-tools
  --disallowedTools R    deny calls at every hop, e.g. 'Bash(git push:*)'
  --sandbox              run Bash commands inside bubblewrap: writable only where the
                         lists allow writing, Read denies hidden, no network but
                         WebFetch's hosts (as agent.md's 'sandbox: true')
  --json-schema SCHEMA   the answer must match this JSON Schema (type object): the
                         model answers through a StructuredOutput tool; -p
                         --output-format json gives it as structured_output
  --max-budget-usd N     stop once the session (subagents included) has spent N US
                         dollars: no further request, exit 1 (error_max_budget_usd)
  --fallback-model M     when the model is overloaded after its retries, send the request
                         to M instead (repeat, or M1,M2, for more; over agent.md's
                         fallbackModel); the run goes on with the model that answered
  --effort LEVEL         low, medium, high, xhigh or max: output_config.effort of the
                         requests, on a model that takes it (over agent.md's effort)
  --thinking T           adaptive, disabled, or a budget of tokens (at least 1024) for
                         extended thinking (over agent.md's thinking); also
                         --max-thinking-tokens N (0: disabled)
  --record FILE          store every model exchange in FILE (JSONL)
  --replay FILE          answer from a recording: no network, no API key
  --cwd DIR              the working folder for tools (default: the current folder)
  --verbose              with -p: show the run on stderr
  -h, --help             show this help

Needs ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN (or --replay); ANTHROPIC_BASE_URL and
ANTHROPIC_MODEL are honoured. The project is the nearest folder holding agent.md or
.claude/; its .claude/settings.json (and settings.local.json, ~/.claude/settings.json)
apply. A call that needs a user's approval is denied, saying how to allow it.
Transcripts are written to .agentmd/sessions/<id>.jsonl.

Exit status: 0 done, 1 error (or a limit reached), 2 refused by permissions or bad
usage, 75 the session is being written by another agentmd now (-c or --resume while
its run goes on; try again once it ends), 130 aborted (Ctrl-C).

Example:
  agentmd -p --allowedTools 'Bash(npm test:*)' "run the tests and fix what fails"`;

export interface RunCommandOptions extends SessionOptions {
  readonly prompt?: string;
  readonly output: "text" | "json" | "stream-json";
  /** Claude Code's output: the answer alone as text, its message shapes as JSON. */
  readonly claudeShapes?: boolean;
  /** Run this subagent instead of the main agent. */
  readonly agent?: string;
  /** The flags wrappers of Claude Code pass (`--mcp-config`, `--tools`, `--session-id`, …). */
  readonly wrapper?: WrapperOptions;
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
  const resume = options.continueLast
    ? latestSession(io, path.resolve(io.cwd, options.cwd ?? "."))
    : options.resume;
  if (resume === null) {
    io.stderr.write("agentmd run: --continue: this project has no session to continue yet\n");
    return 1;
  }
  const wrapper = options.wrapper;
  const permissions = withWrapper(options.permissions, wrapper);
  const runner = await openRunner(
    { ...options, ...(permissions && { permissions }), ...(wrapper && { extra: wrapper.runner }) },
    io,
    restrictedWithNotice(io),
  );
  if (!runner) return 1;
  // A typo of a command's or subagent's name is bad usage: nothing is sent and no session is written.
  const unknown = options.agent ? unknownAgent(runner, options.agent) : unknownSlash(runner, prompt);
  if (unknown) {
    await runner.close();
    io.stderr.write(`agentmd: ${printable(unknown)}\nRun 'agentmd --help' for usage.\n`);
    return 2;
  }
  const controller = new AbortController();
  let interrupts = 0;
  const unhook = io.onInterrupt?.(() => {
    interrupts++;
    if (interrupts === 1) controller.abort();
    else process.exit(130);
  });
  const started = performance.now();
  const out = outputFor(options, io, runner);
  let result: RunResult;
  let sessionId: string | undefined;
  try {
    // --fork-session: the session's conversation goes on in a new session; the old one stays as it was.
    const from = resume && wrapper?.fork ? await forkSession(runner, resume, wrapper.sessionId) : resume;
    const handle = runner.run(prompt, {
      signal: controller.signal,
      ...(from && { resume: from }),
      ...(!resume && wrapper?.sessionId && { sessionId: wrapper.sessionId }),
      ...(options.agent && { agent: options.agent }),
    });
    sessionId = handle.sessionId;
    for await (const event of handle) out.event(event);
    result = await handle.result();
  } catch (e) {
    if (e instanceof SessionError) {
      io.stderr.write(`agentmd: ${printable(e.message)}\n`);
      return e instanceof SessionBusyError ? SESSION_BUSY_EXIT : 1;
    }
    throw e;
  } finally {
    out.stop();
    unhook?.();
    // The session ends (its SessionEnd hooks); MCP servers the run started stop with it (their
    // open pipes would keep the process alive).
    if (sessionId)
      await runner.endSession(sessionId, "other", (m) =>
        io.stderr.write(`agentmd: warning: ${printable(m)}\n`),
      );
    await runner.close();
  }
  out.end(result, performance.now() - started);
  return exitCode(result);
}

/** How a run is shown: agentmd's rendering and events, or Claude Code's answer and messages. */
function outputFor(
  options: RunCommandOptions,
  io: RunIo,
  runner: Runner,
): { event(e: RunEvent): void; stop(): void; end(r: RunResult, ms: number): void } {
  const style = styleFor(io.stdout, io.env);
  const write = (o: object) => io.stdout.write(`${JSON.stringify(o)}\n`);
  if (options.claudeShapes && options.output !== "text") {
    const claude = claudeOutput({
      cwd: path.resolve(io.cwd, options.cwd ?? "."),
      permissionMode: options.permissions?.mode ?? "default",
      apiKeySource: io.env.ANTHROPIC_API_KEY
        ? "ANTHROPIC_API_KEY"
        : io.env.ANTHROPIC_AUTH_TOKEN
          ? "ANTHROPIC_AUTH_TOKEN"
          : "none",
      slashCommands: runner.slashNames(),
      agents: runner.definitions.filter((d) => d.surface === "agent").map((d) => d.name),
    });
    const stream = options.output === "stream-json";
    return {
      event: (e) => {
        if (stream) for (const m of claude.messages(e)) write(m);
        else claude.messages(e);
      },
      stop: () => {},
      end: (r, ms) => write(claude.result(r, ms)),
    };
  }
  if (options.claudeShapes) {
    // `-p` text: the answer alone on stdout (--verbose: the run as agentmd shows it, on stderr).
    const render = options.verbose ? createTextRenderer(io.stderr, styleFor(io.stderr, io.env)) : undefined;
    return {
      event: (e) => render?.(e),
      stop: () => {},
      end: (r) => {
        if (r.outcome === "done") io.stdout.write(`${r.text.trimEnd()}\n`);
        else io.stderr.write(`agentmd: ${printable(r.message ?? r.outcome)}\n`);
      },
    };
  }
  if (options.output === "json") {
    return {
      event: () => {},
      stop: () => {},
      end: (r) => {
        const { messages: _messages, ...rest } = r;
        // An unknown price is no cost of 0.
        const shown = rest.costUnknown ? { ...rest, costUsd: null } : rest;
        io.stdout.write(`${JSON.stringify(shown, null, 2)}\n`);
      },
    };
  }
  if (options.output === "stream-json") return { event: write, stop: () => {}, end: () => {} };
  const progress = createProgress(io.stdout, style, io.env);
  const render = createTextRenderer(progress.out, style, terminalRendering(io.stdout, io.env));
  return {
    event: (e) => {
      render(e);
      progress.update(e);
    },
    stop: () => progress.stop(),
    end: (r, ms) => {
      io.stdout.write(`${summary(r, ms, style)}\n`);
      // Only a session whose transcript was written can be continued.
      if (r.transcript)
        io.stdout.write(`${style.dim(`session ${r.sessionId} (resume with --resume ${r.sessionId})`)}\n`);
    },
  };
}

/** The project's most recent session, for `--continue`; null when it has none. */
export function latestSession(io: CliIo, cwd = io.cwd): string | null {
  return newestSession(sessionsDir(findProjectRoot(cwd, io.env.HOME))) ?? null;
}

/**
 * The exit status of a command refused because another agentmd writes its session now (`run -c`
 * during the session's run, a batch item another batch runs): 75, "try again later" (EX_TEMPFAIL).
 */
export const SESSION_BUSY_EXIT = 75;

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
