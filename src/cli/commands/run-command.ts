import path from "node:path";
import type { Runner } from "../../invocation/runner.js";
import type { RunEvent, RunResult } from "../../loop/events.js";
import { SessionBusyError, SessionError } from "../../loop/transcript.js";
import { asksForSignIn } from "../../mcp/oauth-provider.js";
import { loadRecording, recordedInput } from "../../model/record-replay.js";
import { optionsHelp } from "../flags/option-table.js";
import { RUN_FLAGS, type SessionOptions } from "../flags/session-flags.js";
import { type WrapperOptions, withWrapper } from "../flags/wrapper-flags.js";
import { styleFor } from "../io.js";
import { openRunner } from "../open-runner.js";
import { forkSession } from "../stream-json/sdk-sessions.js";
import { claudeOutput } from "../terminal/claude-output.js";
import { createProgress } from "../terminal/progress.js";
import { createTextRenderer, printable, summary, terminalRendering } from "../terminal/render.js";
import { unknownAgent, unknownSlash } from "../terminal/unknown-slash.js";
import { restrictedWithNotice } from "./project-trust.js";
import { exitCode, latestSession, type RunIo, SESSION_BUSY_EXIT } from "./run-outcome.js";

export { exitCode, latestSession, type RunIo, SESSION_BUSY_EXIT };

export const RUN_HELP = `Usage: agentmd run [PROMPT | /name args] [options]
       agentmd -p [PROMPT] [options]

Runs the main agent (agent.md) once on PROMPT (or on standard input when no PROMPT
is given), streaming its text, one line per tool call with its decision, and a summary.
'/name args' runs a command or skill as typed in the REPL. With -p (--print), as
Claude Code's -p: the answer alone on stdout (--verbose: the run too, on stderr).

Options:
${optionsHelp(RUN_FLAGS, 25)}

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
  const out = await outputFor(options, io, runner);
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
async function outputFor(
  options: RunCommandOptions,
  io: RunIo,
  runner: Runner,
): Promise<{ event(e: RunEvent): void; stop(): void; end(r: RunResult, ms: number): void }> {
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
      signInNeeded: (m) => io.stderr.write(`agentmd: ${printable(m)}\n`),
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
    // `-p` text: the answer alone on stdout (--verbose: the run as agentmd shows it, on stderr);
    // quiet, a server that needs a sign-in is still said, in one line.
    const render = options.verbose ? createTextRenderer(io.stderr, styleFor(io.stderr, io.env)) : undefined;
    return {
      event: (e) => {
        if (render) render(e);
        else if (e.type === "warning" && e.depth === 0 && asksForSignIn(e.message))
          io.stderr.write(`agentmd: ${printable(e.message)}\n`);
      },
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
  const render = createTextRenderer(progress.out, style, await terminalRendering(io.stdout, io.env));
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
