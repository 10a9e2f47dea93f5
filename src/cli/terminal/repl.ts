import path from "node:path";
import { createInterface, type Interface } from "node:readline";
import type { Runner } from "../../invocation/runner.js";
import type { RunEvent } from "../../loop/events.js";
import { listSessions } from "../../loop/session-list.js";
import { newSessionId, sessionsDir } from "../../loop/transcript.js";
import { modelNameProblem, resolveModel } from "../../model/models.js";
import { askedOnTerminal } from "../commands/project-trust.js";
import { latestSession, type RunIo } from "../commands/run-command.js";
import { runTools } from "../commands/tools-command.js";
import type { SessionOptions } from "../flags/session-flags.js";
import { type Style, styleFor } from "../io.js";
import { openRunner } from "../open-runner.js";
import { driveSession, type SessionDriver } from "../session/session-driver.js";
import { createApprovalPrompt, lineAnswerer } from "./approval-prompt.js";
import { selectAnswerer } from "./approval-select.js";
import { BUILTIN, REPL_COMMANDS } from "./chat-help.js";
import { formElicit } from "./elicit-form.js";
import { HISTORY_SIZE, openHistory } from "./history.js";
import { inputGate } from "./input-gate.js";
import { lineQueue } from "./line-queue.js";
import { listing, promptListing } from "./listing.js";
import { createProgress, type Progress } from "./progress.js";
import { createTextRenderer, printable, summary, terminalRendering, terminalWidth } from "./render.js";
import { forkedChat, rewindInChat } from "./rewind-chat.js";
import { recapSaved } from "./session-recap.js";
import { unknownSlash } from "./unknown-slash.js";

export { CHAT_HELP } from "./chat-help.js";

export interface ChatOptions extends SessionOptions {
  /** Sent as the first message. */
  readonly prompt?: string;
  /** `--fork-session`: the resumed conversation goes on under a new id; the old session stays as it was. */
  readonly fork?: boolean;
}

/** The REPL. Returns the exit code when the user leaves. */
export async function runChat(options: ChatOptions, io: RunIo): Promise<number> {
  const cwd = path.resolve(io.cwd, options.cwd ?? ".");
  const style = styleFor(io.stdout, io.env);
  const tty = io.stdout.isTTY === true && io.stdin?.isTTY === true;
  const history = tty ? openHistory(io.env) : undefined;
  let slashNames: () => string[] = () => [];
  const stdin = (io.stdin ?? process.stdin) as NodeJS.ReadableStream;
  // On a terminal an approval question takes the keys while it is open (a select, one key).
  const gate = tty ? inputGate(stdin) : undefined;
  const rl = createInterface({
    input: gate?.input ?? stdin,
    output: io.stdout as NodeJS.WritableStream,
    terminal: tty,
    historySize: HISTORY_SIZE,
    history: history?.lines ?? [],
    completer: (line: string) => {
      if (!line.startsWith("/")) return [[], line];
      const all = [...BUILTIN, ...slashNames().map((n) => `/${n}`)];
      const hits = all.filter((c) => c.startsWith(line));
      return [hits.length ? hits : all, line];
    },
  });
  const lines = lineQueue(rl);
  const ask = async (question: string) => {
    io.stdout.write(question);
    return lines.next();
  };
  const chat: Chat = {
    style,
    io,
    cwd,
    options,
    ask,
    session: undefined,
    written: false,
    totals: newTotals(),
  };
  // A call that needs approval asks here, between the turn's output and the next prompt.
  let interrupt = () => {};
  const answerer = gate
    ? selectAnswerer(gate, io.stdout as NodeJS.WritableStream, style, () => interrupt())
    : lineAnswerer(lines, io.stdout, style);
  const approve = createApprovalPrompt(answerer, io.stdout, style, {
    before: () => chat.progress?.hold(true),
    after: () => chat.progress?.hold(false),
    signal: () => chat.current?.signal,
  });
  // A server's question is a form asked here, as an approval is.
  const elicit = formElicit(ask, style, {
    before: () => chat.progress?.hold(true),
    after: () => chat.progress?.hold(false),
  });
  const runner = await openRunner(
    {
      ...options,
      permissions: { ...options.permissions, approve },
      extra: { mcp: { elicit } },
    },
    io,
    askedOnTerminal(io, tty ? ask : undefined),
  );
  if (!runner) {
    rl.close();
    gate?.close();
    return 1;
  }
  // The servers the list reaches start now, so that their prompts complete as commands.
  slashNames = () => runner.slashNames();
  void runner.slashCommands();
  const resumed = options.continueLast ? latestSession(io, cwd) : options.resume;
  if (resumed === null) io.stdout.write(`${style.dim("no session to continue yet: a new one starts")}\n`);
  else if (resumed) {
    const id = options.fork ? await forkedChat(io, runner, resumed) : resumed;
    if (id === undefined) {
      rl.close();
      gate?.close();
      await runner.close();
      return 1;
    }
    chat.session = id;
  }
  // Off a terminal (input piped in), no prompt is drawn: the output is the conversation alone.
  const showPrompt = () => {
    if (tty) rl.prompt();
  };
  const main = runner.definitions.find((d) => d.surface === "main");
  io.stdout.write(
    `${style.bold("agentmd")} ${style.dim(`— ${main?.name ?? "main"} in ${runner.projectDir}${chat.session ? `, continuing ${chat.session}` : ""}; /help for commands`)}\n`,
  );
  // -c and -r ID show the conversation so far, as /resume ID does.
  if (chat.session)
    recapSaved(runner.projectDir, chat.session, io.stdout, style, await terminalRendering(io.stdout, io.env));
  let lastInterrupt = 0;
  const onInterrupt = () => {
    if (chat.current) {
      if (chat.current.signal.aborted) process.exit(130);
      chat.current.abort();
      // The spinner's line goes first, so no frame stays above the next prompt.
      chat.progress?.stop();
      io.stdout.write(`\n${style.yellow("stopping this turn (Ctrl-C again to leave)")}\n`);
      return;
    }
    if (Date.now() - lastInterrupt < 2000) {
      rl.close();
      return;
    }
    lastInterrupt = Date.now();
    io.stdout.write(`\n${style.dim("(Ctrl-C again to leave, or /exit)")}\n`);
    showPrompt();
  };
  interrupt = onInterrupt;
  rl.on("SIGINT", onInterrupt);
  const unhook = io.onInterrupt?.(onInterrupt);
  rl.setPrompt(`${style.cyan("›")} `);
  try {
    // A new conversation starts with agent.md's initialPrompt (before the prompt given, if any).
    const initial = main?.surface === "main" && !chat.session ? main.initialPrompt : undefined;
    const first = options.prompt ?? initial;
    if (first) await turn(chat, runner, first);
    showPrompt();
    for (let raw = await lines.next(); raw !== undefined; raw = await lines.next()) {
      const line = raw.trim();
      if (line !== "") history?.add(line);
      if (line === "/exit" || line === "/quit") break;
      if (line !== "") await handleLine(chat, runner, line);
      showPrompt();
    }
  } finally {
    unhook?.();
    rl.close();
    gate?.close();
    // The session ends (its SessionEnd hooks), and MCP servers the runs started stop with it.
    if (chat.session) await runner.endSession(chat.session, "prompt_input_exit", warnOf(chat));
    await runner.close();
  }
  if (chat.session && chat.written)
    io.stdout.write(
      `${style.dim(`session ${chat.session} (agentmd chat -r ${chat.session}, or agentmd run --resume ${chat.session}, to go on)`)}\n`,
    );
  return 0;
}

/** The state of one conversation. */
interface Chat {
  readonly style: Style;
  readonly io: RunIo;
  readonly cwd: string;
  readonly options: ChatOptions;
  readonly ask: (question: string) => Promise<string | undefined>;
  session: string | undefined;
  written: boolean;
  model?: string;
  totals: Totals;
  current?: AbortController;
  progress?: Progress;
  driver?: SessionDriver;
}

interface Totals {
  turns: number;
  input: number;
  output: number;
  costUsd: number;
  costUnknown: boolean;
}
const newTotals = (): Totals => ({ turns: 0, input: 0, output: 0, costUsd: 0, costUnknown: false });

/** A line: one of the REPL's own commands, or a turn (a prompt, or `/name args`). */
async function handleLine(chat: Chat, runner: Runner, line: string): Promise<void> {
  const { io, style } = chat;
  const [word = "", ...rest] = line.split(/\s+/);
  const arg = rest.join(" ");
  switch (word) {
    case "/help": {
      // The REPL's own commands, what this project adds (commands, skills, servers' prompts), the rest.
      const width = terminalWidth(io.stdout, io.env);
      const prompts = promptListing(await runner.slashCommands(), style, width);
      io.stdout.write(
        `${REPL_COMMANDS}\n\n${listing(runner.definitions, "command", style, width)}\n${listing(runner.definitions, "skill", style, width)}\n${prompts}${style.dim("approvals, Ctrl-C and the options: agentmd chat --help")}\n`,
      );
      return;
    }
    case "/tools":
      // The same report as `agentmd tools`: the settings' rules and the approval tier included.
      await runTools(
        {
          chain: "main",
          json: false,
          ...(chat.options.permissions && { permissions: chat.options.permissions }),
        },
        { ...io, cwd: chat.cwd },
      );
      return;
    case "/agents":
      io.stdout.write(`${listing(runner.definitions, "agent", style, terminalWidth(io.stdout, io.env))}\n`);
      return;
    case "/skills": {
      const width = terminalWidth(io.stdout, io.env);
      io.stdout.write(
        `${listing(runner.definitions, "skill", style, width)}\n${listing(runner.definitions, "command", style, width)}\n`,
      );
      return;
    }
    case "/model": {
      const bad = arg ? modelNameProblem(arg) : undefined;
      if (bad) {
        io.stdout.write(`${style.yellow(printable(bad, false))}\n`);
        return;
      }
      if (arg) chat.model = arg;
      io.stdout.write(`model: ${printable(resolveModel(chat.model ?? runner.model), false)}\n`);
      return;
    }
    case "/cost":
      io.stdout.write(`${costLine(chat.totals)}\n`);
      return;
    case "/clear":
      if (chat.session) await runner.endSession(chat.session, "clear", warnOf(chat));
      chat.session = undefined;
      chat.totals = newTotals();
      io.stdout.write(`${style.dim("a new conversation starts")}\n`);
      return;
    case "/resume":
      await resumeSession(chat, runner, arg);
      return;
    case "/rewind":
      await rewindInChat({ session: chat.session, io, style, ask: chat.ask }, runner, arg);
      return;
    case "/compact":
      await compact(chat, runner, arg);
      return;
    default: {
      // A mistyped command name is said here, and nothing is sent.
      const unknown = unknownSlash(runner, line);
      if (unknown) io.stdout.write(`${style.yellow(printable(unknown, false))}\n`);
      else await turn(chat, runner, line);
    }
  }
}

/** One turn of the conversation: the line runs in the session, its events shown as they come. */
async function turn(chat: Chat, runner: Runner, line: string): Promise<void> {
  const { io, style } = chat;
  chat.current = new AbortController();
  const started = performance.now();
  const driver = chat.driver?.sessionId === chat.session ? chat.driver : undefined;
  chat.driver =
    driver ?? driveSession(runner, { sessionId: chat.session ?? newSessionId(), resumed: !!chat.session });
  chat.session = chat.driver.sessionId;
  const progress = createProgress(io.stdout, style, io.env);
  chat.progress = progress;
  const render = createTextRenderer(progress.out, style, await terminalRendering(io.stdout, io.env));
  const shown = (event: RunEvent) => {
    render(event);
    progress.update(event);
  };
  const result = await chat.driver.turn(line, shown, { signal: chat.current.signal, model: chat.model });
  progress.stop();
  chat.progress = undefined;
  chat.written ||= result.transcript !== undefined;
  const t = chat.totals;
  t.turns += result.turns;
  t.input +=
    result.usage.input_tokens +
    result.usage.cache_read_input_tokens +
    result.usage.cache_creation_input_tokens;
  t.output += result.usage.output_tokens;
  t.costUsd += result.costUsd;
  t.costUnknown ||= result.costUnknown === true;
  io.stdout.write(`${summary(result, performance.now() - started, style)}\n`);
  chat.current = undefined;
}

function costLine(t: Totals): string {
  const n = (x: number) => x.toLocaleString("en-US");
  const cost = t.costUnknown ? "cost unknown (a model without a known price)" : `$${t.costUsd.toFixed(4)}`;
  return `this conversation: ${t.turns} turn${t.turns === 1 ? "" : "s"} · ${n(t.input)} in / ${n(t.output)} out tokens · ${cost}`;
}

/** `/resume`: the recent sessions; `/resume ID`: continue that one. */
async function resumeSession(chat: Chat, runner: Runner, id: string): Promise<void> {
  const { io, style } = chat;
  const sessions = listSessions(sessionsDir(runner.projectDir));
  if (!id) {
    if (sessions.length === 0) io.stdout.write(`${style.dim("no sessions yet")}\n`);
    for (const s of sessions.slice(0, 10))
      io.stdout.write(
        `  ${s.id}  ${s.modified.toISOString().slice(0, 16).replace("T", " ")}  ${printable(s.prompt.replace(/\s+/g, " ").slice(0, 60), false)}\n`,
      );
    return;
  }
  if (!sessions.some((s) => s.id === id)) {
    io.stdout.write(
      `${style.yellow(`no session '${printable(id, false)}' in this project`)} (/resume lists them)\n`,
    );
    return;
  }
  chat.session = id;
  chat.totals = newTotals();
  // The conversation so far, shortened, so that the next prompt follows what it continues.
  recapSaved(runner.projectDir, id, io.stdout, style, await terminalRendering(io.stdout, io.env));
  io.stdout.write(`${style.dim(`continuing ${id}`)}\n`);
}

/** `/compact [what to keep]`: the conversation so far, summarised by the model, as a new session. */
async function compact(chat: Chat, runner: Runner, instructions: string): Promise<void> {
  const { io, style } = chat;
  if (!chat.session) {
    io.stdout.write(`${style.dim("nothing to compact yet")}\n`);
    return;
  }
  chat.current = new AbortController();
  const r = await runner.compact(chat.session, {
    signal: chat.current.signal,
    ...(instructions && { instructions }),
    ...(chat.model && { model: chat.model }),
  });
  chat.current = undefined;
  if (!r.ok) {
    io.stdout.write(`${style.yellow("could not compact:")} ${printable(r.message, false)}\n`);
    return;
  }
  chat.session = r.sessionId;
  chat.written = true;
  io.stdout.write(
    `${style.dim(`compacted into ${r.sessionId}: ${r.tokensBefore.toLocaleString("en-US")} tokens of conversation became a summary of ${r.summary.length.toLocaleString("en-US")} characters`)}\n`,
  );
}

export type { Interface };

/** A warning of the session's own (a SessionEnd hook that failed), shown as the runs' are. */
function warnOf(chat: Chat): (message: string) => void {
  return (message) => chat.io.stderr.write(`${chat.style.yellow("warning:")} ${printable(message, false)}\n`);
}
