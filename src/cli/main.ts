// Start-up pays only for what the command runs: this module's static imports are the few small ones
// every command needs (`--version` and `--help` are answered from help.ts before this loads); each command loads its own
// modules when it runs (`check` never loads the model client, MCP, the queue, tracing or the terminal
// UI). test/cli/startup-loads.test.ts holds this with a trace of the files a command reads.
import { didYouMean } from "../shared/did-you-mean.js";
import { check } from "./check-entry.js";
import { commandFailure } from "./command-failure.js";
import type { RunIo } from "./commands/run-command.js";
import { parseFlags } from "./flags/parse-flags.js";
import { UsageError } from "./flags/usage-error.js";
import { quickAnswer } from "./help.js";
import type { CliIo } from "./io.js";

export type { RunIo } from "./commands/run-command.js";
export type { CliIo } from "./io.js";

const COMMANDS = [
  "chat",
  "run",
  "check",
  "tools",
  "mcp",
  "init",
  "sessions",
  "rewind",
  "batch",
  "worker",
  "enqueue",
  "view",
  "audit",
  "trust",
  "plugin",
  "acp",
  "auth",
  "help",
] as const;

/** The CLI entry point; returns the process exit code. Contract: never throws. */
export async function main(argv: readonly string[], io: RunIo): Promise<number> {
  // `--settings JSON auth status`, as claude-agent-acp asks: the settings name no credential here.
  const args = argv[0] === "--settings" && argv[2] === "auth" ? argv.slice(2) : argv;
  const [command, ...rest] = args;
  const quick = quickAnswer(args);
  if (quick !== undefined) {
    io.stdout.write(quick);
    return 0;
  }
  try {
    switch (command) {
      case undefined:
        return await chat([], io);
      case "chat":
        return await chat(rest, io);
      case "init":
        return await init(rest, io);
      case "sessions":
        return await sessions(rest, io);
      case "run":
        return await run(rest, io);
      case "rewind":
        return await rewind(rest, io);
      case "check":
        return await check(rest, io);
      case "tools":
        return await tools(rest, io);
      case "audit":
        return await audit(rest, io);
      case "trust":
        return await trust(rest, io);
      case "mcp": {
        // MCP servers: the command lives in mcp-command.ts, loaded only when used.
        const { runMcpCommand } = await import("./commands/mcp-command.js");
        return await runMcpCommand(rest, io, (m) => new UsageError(m));
      }
      case "auth":
        return await auth(rest, io);
      case "plugin":
        return (await import("./commands/plugin-command.js")).runPluginCommand(rest, io);
      case "batch":
        return await (await import("./commands/batch-command.js")).batchCommand(rest, io);
      case "worker":
        return await (await import("./commands/worker-command.js")).workerCommand(rest, io);
      case "enqueue":
        return await (await import("./commands/enqueue-command.js")).enqueueCommand(rest, io);
      case "view":
        return await (await import("./commands/view-command.js")).viewCommand(rest, io);
      case "acp":
        return await acp(rest, io);
      default:
        return await withoutCommand(argv, io);
    }
  } catch (e) {
    return commandFailure(e, io);
  }
}

/**
 * Flags without a command, as Claude Code takes them: `agentmd -p "PROMPT"` (or `--print`) is one
 * run, `agentmd -c`, `agentmd --model opus` a conversation. A word that is not a command is an
 * error naming the nearest command.
 */
function withoutCommand(argv: readonly string[], io: RunIo): Promise<number> {
  // The Agent SDK starts the CLI with no -p: its prompts come on stdin (`--input-format stream-json`).
  const printing = argv.some(
    (a) =>
      a === "-p" || a === "--print" || /^-[a-zA-Z]*p[a-zA-Z]*$/.test(a) || a.startsWith("--input-format"),
  );
  if (printing) return run(argv, io);
  const [first = ""] = argv;
  if (first.startsWith("-")) return chat(argv, io);
  const near = didYouMean(first, COMMANDS);
  throw new UsageError(
    `unknown command '${first}'${near ? `; did you mean '${near}'?` : ""} (for one prompt: agentmd -p '${first}'; for a conversation: agentmd chat)`,
  );
}

// Each command loads its own modules when it runs: `check` (check-entry.ts) never pays for the SDK's start-up.
async function tools(args: readonly string[], io: CliIo): Promise<number> {
  const { TOOLS_HELP, TOOLS_OPTIONS, runTools } = await import("./commands/tools-command.js");
  const { permissionFlags } = await import("./flags/permission-flags.js");
  const { values, positionals } = parseFlags(args, TOOLS_OPTIONS);
  if (values.help) {
    io.stdout.write(`${TOOLS_HELP}\n`);
    return 0;
  }
  if (values.try === undefined && positionals.length > 0) {
    throw new UsageError(`unexpected argument '${positionals[0]}' (did you mean --try TOOL 'JSON'?)`);
  }
  return runTools(
    {
      chain: values.chain,
      json: values.json,
      ...(values.sandbox && { sandbox: true }),
      ...(values.mcp && { mcp: true }),
      permissions: permissionFlags(values),
      ...(values.try !== undefined && { tryTool: values.try, tryInput: positionals[0] ?? "{}" }),
    },
    io,
  );
}

async function audit(args: readonly string[], io: CliIo): Promise<number> {
  const { AUDIT_HELP, AUDIT_OPTIONS, runAudit } = await import("./commands/audit-command.js");
  const { values, positionals } = parseFlags(args, AUDIT_OPTIONS);
  if (values.help) {
    io.stdout.write(`${AUDIT_HELP}\n`);
    return 0;
  }
  if (positionals.length > 1) throw new UsageError("audit takes one project folder at most");
  if (values.diff === "") throw new UsageError("--diff needs a git revision, e.g. --diff origin/main");
  if (values.graph === "") throw new UsageError("--graph needs a file name, e.g. --graph audit.html");
  if (values.diff !== undefined && values.mcp)
    throw new UsageError(
      "--diff runs none of the project's code, and --mcp would start the working tree's MCP servers; use one or the other",
    );
  return runAudit(
    {
      json: values.json,
      mcp: values.mcp,
      ...(positionals[0] !== undefined && { path: positionals[0] }),
      ...(values.graph !== undefined && { graph: values.graph }),
      ...(values.diff !== undefined && { diff: values.diff }),
    },
    io,
  );
}

async function trust(args: readonly string[], io: RunIo): Promise<number> {
  const { TRUST_HELP, TRUST_OPTIONS, runTrust } = await import("./commands/trust-command.js");
  const { values, positionals } = parseFlags(args, TRUST_OPTIONS);
  if (values.help) {
    io.stdout.write(`${TRUST_HELP}\n`);
    return 0;
  }
  if ([values.yes, values.list, values.revoke].filter(Boolean).length > 1)
    throw new UsageError("--yes, --list and --revoke cannot be used together");
  if (positionals.length > 1) throw new UsageError("trust takes one project folder at most");
  if (values.list && positionals.length > 0) throw new UsageError("--list takes no folder");
  return runTrust(
    {
      yes: values.yes,
      list: values.list,
      revoke: values.revoke,
      json: values.json,
      ...(positionals[0] !== undefined && { path: positionals[0] }),
    },
    io,
  );
}

async function run(args: readonly string[], io: RunIo): Promise<number> {
  const { RUN_FLAGS, sessionOptions } = await import("./flags/session-flags.js");
  const { wrapperOptions } = await import("./flags/wrapper-flags.js");
  const { AUTO_MODE, autoAsDefault } = await import("./flags/permission-flags.js");
  const parsed = parseFlags(args, RUN_FLAGS);
  const { positionals } = parsed;
  const wrapper = wrapperOptions(parsed.values, io.cwd);
  // dontAsk is the default mode with no one to ask (the wrapper options carry it); auto is default.
  const values = wrapper.dontAsk
    ? { ...parsed.values, "permission-mode": undefined }
    : parsed.values["permission-mode"] === AUTO_MODE
      ? { ...parsed.values, "permission-mode": autoAsDefault(io.stderr) }
      : parsed.values;
  if (values.help) {
    const { RUN_HELP } = await import("./commands/run-command.js");
    io.stdout.write(`${RUN_HELP}\n`);
    return 0;
  }
  const native = values.output;
  const claude = values["output-format"];
  if (native !== undefined && claude !== undefined)
    throw new UsageError("--output and --output-format cannot be used together");
  const output = claude ?? native ?? "text";
  if (output !== "text" && output !== "json" && output !== "stream-json") {
    const flag = claude !== undefined ? "--output-format" : "--output";
    throw new UsageError(`${flag} must be text, json or stream-json, not '${output}'`);
  }
  if (wrapper.streamInput) {
    if (output !== "stream-json")
      throw new UsageError("--input-format stream-json needs --output-format stream-json");
    const { runSdkSession } = await import("./stream-json/sdk-session.js");
    return runSdkSession(
      {
        ...sessionOptions(values, io.cwd),
        wrapper,
        ...(values.agent && { agent: values.agent }),
        ...(parsed.values["permission-mode"] === AUTO_MODE && { autoSaid: true }),
      },
      io,
    );
  }
  // The terminal's run (its rendering) is loaded only here: a stream-json session never needs it.
  const { runRun } = await import("./commands/run-command.js");
  return runRun(
    {
      ...sessionOptions(values, io.cwd),
      wrapper,
      output,
      // Claude Code's shapes with --output-format, or with -p (its text is the answer alone).
      ...((claude !== undefined || (values.print && native === undefined)) && { claudeShapes: true }),
      ...(positionals.length > 0 && { prompt: positionals.join(" ") }),
      ...(values.agent && { agent: values.agent }),
    },
    io,
  );
}

async function acp(args: readonly string[], io: RunIo): Promise<number> {
  const { ACP_FLAGS, ACP_HELP, runAcp } = await import("./acp/acp-command.js");
  const { sessionOptions } = await import("./flags/session-flags.js");
  const { values, positionals } = parseFlags(args, ACP_FLAGS);
  if (values.help) {
    io.stdout.write(`${ACP_HELP}\n`);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`acp takes no arguments, not '${positionals[0]}'`);
  return runAcp(sessionOptions(values, io.cwd), io);
}

async function chat(args: readonly string[], io: RunIo): Promise<number> {
  const { CHAT_HELP, runChat } = await import("./terminal/repl.js");
  const { SESSION_FLAGS, sessionOptions } = await import("./flags/session-flags.js");
  const { values, positionals } = parseFlags(args, SESSION_FLAGS);
  if (values.help) {
    io.stdout.write(`${CHAT_HELP}\n`);
    return 0;
  }
  if (values["fork-session"] && !values.resume && !values.continue)
    throw new UsageError("--fork-session needs --resume ID or --continue");
  return runChat(
    {
      ...sessionOptions(values, io.cwd),
      ...(values["fork-session"] && { fork: true }),
      ...(positionals.length > 0 && { prompt: positionals.join(" ") }),
    },
    io,
  );
}

async function auth(args: readonly string[], io: CliIo): Promise<number> {
  const { AUTH_HELP, AUTH_OPTIONS, runAuthStatus } = await import("./commands/auth-command.js");
  const { values, positionals } = parseFlags(args, AUTH_OPTIONS);
  if (values.help) {
    io.stdout.write(`${AUTH_HELP}\n`);
    return 0;
  }
  if (positionals.length !== 1 || positionals[0] !== "status")
    throw new UsageError(
      "usage: agentmd auth status [--json] (agentmd has no login: it reads the environment)",
    );
  return runAuthStatus({ json: values.json }, io);
}

async function init(args: readonly string[], io: CliIo): Promise<number> {
  const { INIT_HELP, INIT_OPTIONS, runInit } = await import("./commands/init-command.js");
  const { values, positionals } = parseFlags(args, INIT_OPTIONS);
  if (values.help) {
    io.stdout.write(`${INIT_HELP}\n`);
    return 0;
  }
  if (positionals.length > 1) throw new UsageError("init takes one folder at most");
  return runInit(positionals[0], io);
}

async function sessions(args: readonly string[], io: CliIo): Promise<number> {
  const { SESSIONS_HELP, SESSIONS_OPTIONS, runSessions } = await import("./commands/sessions-command.js");
  const { values, positionals } = parseFlags(args, SESSIONS_OPTIONS);
  if (values.help) {
    io.stdout.write(`${SESSIONS_HELP}\n`);
    return 0;
  }
  const [verb, id] = positionals;
  if (verb === undefined) return runSessions({ json: values.json }, io);
  if (verb === "rm" && id !== undefined && positionals.length === 2)
    return runSessions({ remove: id, json: values.json }, io);
  if (verb !== "show" || id === undefined || positionals.length > 2)
    throw new UsageError("usage: agentmd sessions [show ID | rm ID] [--json]");
  return runSessions({ show: id, json: values.json }, io);
}

async function rewind(args: readonly string[], io: CliIo): Promise<number> {
  const { REWIND_HELP, REWIND_OPTIONS, runRewind } = await import("./commands/rewind-command.js");
  const { permissionFlags } = await import("./flags/permission-flags.js");
  const { values, positionals } = parseFlags(args, REWIND_OPTIONS);
  if (values.help) {
    io.stdout.write(`${REWIND_HELP}\n`);
    return 0;
  }
  const permissions = permissionFlags(values);
  return runRewind(
    {
      words: [
        ...positionals,
        ...(values.force ? ["--force"] : []),
        ...(values["dry-run"] ? ["--dry-run"] : []),
      ],
      json: values.json === true,
      ...(values.resume !== undefined && { session: values.resume }),
      ...(values.cwd !== undefined && { cwd: values.cwd }),
      ...(Object.keys(permissions).length > 0 && { permissions }),
    },
    io,
  );
}

export { killLiveMcpServers } from "../mcp/live-servers.js";
export { killLiveProcessGroups } from "../tools/builtin/shell-process.js";
