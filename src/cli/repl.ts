import path from "node:path";
import { createInterface, type Interface } from "node:readline";
import { findProjectRoot } from "../definitions/discover.js";
import type { PermissionOptions } from "../invocation/approvals.js";
import type { Runner } from "../invocation/runner.js";
import type { RunEvent } from "../loop/events.js";
import { createApprovalPrompt } from "./approval-prompt.js";
import { type Style, styleFor } from "./io.js";
import { lineQueue } from "./line-queue.js";
import { openRunner } from "./open-runner.js";
import { createTextRenderer, printable, summary } from "./render.js";
import type { RunIo } from "./run-command.js";
import { runTools } from "./tools-command.js";

export const CHAT_HELP = `Usage: agentmd [chat] [--model M] [--record FILE | --replay FILE] [--cwd DIR] [--sandbox]
                     [--permission-mode MODE] [--allowedTools RULES] [--disallowedTools RULES]

A conversation with the main agent (agent.md). Type a message, or:
  /name args   run a command or skill (Tab completes the names)
  /help        this list          /tools    what the main agent may do
  /agents      the subagents      /skills   the skills and commands
  /exit        leave (or Ctrl-D)
A call that needs approval is asked about: y (once), a (calls like it, for the session),
n and a reason (told to the model). Ctrl-C stops the current turn; a second Ctrl-C leaves.
Each turn continues one session, written to .agentmd/sessions/<id>.jsonl. --sandbox runs
Bash commands inside bubblewrap; the other flags are those of 'agentmd run'.`;

export interface ChatOptions {
  readonly model?: string;
  readonly record?: string;
  readonly replay?: string;
  readonly cwd?: string;
  /** `--sandbox`: run commands inside the OS sandbox. */
  readonly sandbox?: boolean;
  /** `--permission-mode`, `--allowedTools`, `--disallowedTools`. */
  readonly permissions?: Omit<PermissionOptions, "approve">;
}

const BUILTIN = ["/help", "/tools", "/agents", "/skills", "/exit", "/quit"];
const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** The REPL. Returns the exit code when the user leaves. */
export async function runChat(options: ChatOptions, io: RunIo): Promise<number> {
  const cwd = path.resolve(io.cwd, options.cwd ?? ".");
  const projectDir = findProjectRoot(cwd, io.env.HOME);
  const style = styleFor(io.stdout, io.env);
  const tty = io.stdout.isTTY === true && io.stdin?.isTTY === true;
  const input = (io.stdin ?? process.stdin) as NodeJS.ReadableStream;
  let slashNames: () => string[] = () => [];
  const rl = createInterface({
    input,
    output: io.stdout as NodeJS.WritableStream,
    terminal: tty,
    historySize: 500,
    completer: (line: string) => {
      if (!line.startsWith("/")) return [[], line];
      const all = [...BUILTIN, ...slashNames().map((n) => `/${n}`)];
      const hits = all.filter((c) => c.startsWith(line));
      return [hits.length ? hits : all, line];
    },
  });
  const lines = lineQueue(rl);
  let current: AbortController | undefined;
  let spinner: ReturnType<typeof createSpinner> | undefined;
  // A call that needs approval asks here, between the turn's output and the next prompt.
  const approve = createApprovalPrompt(lines, io.stdout, style, {
    before: () => spinner?.stop(),
    signal: () => current?.signal,
  });
  const runner = await openRunner({ ...options, permissions: { ...options.permissions, approve } }, io);
  if (!runner) {
    rl.close();
    return 1;
  }
  slashNames = () => runner.slashNames();
  // Off a terminal (input piped in), no prompt is drawn: the output is the conversation alone.
  const showPrompt = () => {
    if (tty) rl.prompt();
  };
  const main = runner.definitions.find((d) => d.surface === "main");
  io.stdout.write(
    `${style.bold("agentmd")} ${style.dim(`— ${main?.name ?? "main"} in ${projectDir}; /help for commands`)}\n`,
  );
  let session: string | undefined;
  let written = false;
  let lastInterrupt = 0;
  const onInterrupt = () => {
    if (current) {
      if (current.signal.aborted) process.exit(130);
      current.abort();
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
  rl.on("SIGINT", onInterrupt);
  const unhook = io.onInterrupt?.(onInterrupt);
  rl.setPrompt(`${style.cyan("›")} `);
  showPrompt();
  try {
    for (let raw = await lines.next(); raw !== undefined; raw = await lines.next()) {
      const line = raw.trim();
      if (line === "") {
        showPrompt();
        continue;
      }
      if (line === "/exit" || line === "/quit") break;
      if (line === "/help") io.stdout.write(`${CHAT_HELP}\n`);
      else if (line === "/tools")
        // The same report as `agentmd tools`: the settings' rules and the approval tier included.
        await runTools(
          { chain: "main", json: false, ...(options.permissions && { permissions: options.permissions }) },
          { ...io, cwd },
        );
      else if (line === "/agents") io.stdout.write(`${listing(runner, "agent", style)}\n`);
      else if (line === "/skills")
        io.stdout.write(`${listing(runner, "skill", style)}\n${listing(runner, "command", style)}\n`);
      else {
        current = new AbortController();
        const started = performance.now();
        const handle = runner.run(line, { signal: current.signal, ...(session && { resume: session }) });
        session = handle.sessionId;
        const render = createTextRenderer(io.stdout, style);
        spinner = tty ? createSpinner(io.stdout, style) : undefined;
        for await (const event of handle) {
          spinner?.update(event);
          render(event);
        }
        spinner?.stop();
        spinner = undefined;
        const result = await handle.result();
        written = result.transcript !== undefined;
        io.stdout.write(`${summary(result, performance.now() - started, style)}\n`);
        current = undefined;
      }
      showPrompt();
    }
  } finally {
    unhook?.();
    rl.close();
    // MCP servers the runs started stop with the conversation.
    await runner.close();
  }
  if (session && written)
    io.stdout.write(`${style.dim(`session ${session} (agentmd run --resume ${session} to go on)`)}\n`);
  return 0;
}

/** Shows the running tools on one line, on a terminal only, and clears it before other output. */
function createSpinner(out: RunIo["stdout"], style: Style) {
  const running = new Map<string, string>();
  let frame = 0;
  let timer: NodeJS.Timeout | undefined;
  let drawn = false;
  // Only a line the spinner drew is cleared: streamed text must never be erased.
  const clear = () => {
    if (drawn) out.write("\r\x1b[2K");
    drawn = false;
  };
  const draw = () => {
    clear();
    drawn = true;
    const names = [...new Set(running.values())].join(", ");
    out.write(style.dim(`${FRAMES[frame++ % FRAMES.length]} running ${names}…`));
  };
  return {
    update(e: RunEvent) {
      if (e.type === "tool_start") {
        running.set(e.id, e.name);
        if (!timer) timer = setInterval(draw, 80);
        draw();
      } else if (
        e.type === "tool_end" ||
        e.type === "message_delta" ||
        e.type === "run_end" ||
        e.type === "run_start"
      ) {
        if (e.type === "tool_end") running.delete(e.id);
        clear();
        if (running.size === 0 && timer) {
          clearInterval(timer);
          timer = undefined;
        }
      }
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      clear();
    },
  };
}

function listing(runner: Runner, surface: "agent" | "skill" | "command", style: Style): string {
  const defs = runner.definitions.filter((d) => d.surface === surface);
  const title = { agent: "subagents", skill: "skills", command: "commands" }[surface];
  if (defs.length === 0) return style.dim(`no ${title}`);
  const prefix = surface === "agent" ? "" : "/";
  return [
    style.bold(`${title}:`),
    ...defs.map(
      (d) =>
        `  ${prefix}${printable(d.name, false)}${d.description ? style.dim(` — ${printable(d.description, false)}`) : ""}`,
    ),
  ].join("\n");
}

export type { Interface };
