import path from "node:path";
import { createMcpHub } from "../../mcp/mcp-hub.js";
import { type McpServerSpec, mcpToolName } from "../../mcp/server-spec.js";
import { DEFAULT_MCP_TIMEOUT_MS } from "../../shared/defaults.js";
import { trustState } from "../../trust/trust-state.js";
import { HELP_OPTION, type OptionTable, optionsHelp } from "../flags/option-table.js";
import { parseFlags } from "../flags/parse-flags.js";
import { type CliIo, styleFor } from "../io.js";
import { projectSpecs, untrustedServers } from "./mcp-tool-names.js";
import { trustHome } from "./project-trust.js";

/** `mcp`'s options: its parser and its help's option lines. */
export const MCP_OPTIONS = {
  json: { type: "boolean", default: false, help: "machine-readable output" },
  timeout: {
    type: "string",
    value: "SECONDS",
    help: [
      "list: how long a server may take to start (default 30);",
      "login: how long to wait for the browser (default 300)",
    ],
  },
  "no-browser": { type: "boolean", default: false, help: "login: print the address, open no browser" },
  ...HELP_OPTION,
} as const satisfies OptionTable;

export const MCP_HELP = `Usage: agentmd mcp list [--json] [--timeout SECONDS]
       agentmd mcp login NAME [--no-browser] [--timeout SECONDS]
       agentmd mcp logout NAME

list    Lists the project's MCP servers — those of .mcp.json, agent.md's
        mcpServers, and each subagent's inline ones — tries to start each, and
        prints its status and its tools as mcp__server__tool (and its prompts as
        /mcp__server__prompt). Every server is stopped again before it ends.
login   Signs in to the HTTP server NAME with OAuth: prints the address to open
        (and opens a browser when it can), waits for the browser to come back
        to agentmd on 127.0.0.1, and keeps the sign-in in ~/.agentmd/mcp-auth.json
        (readable by you alone) for that server's URL only. Runs refresh it.
logout  Forgets the sign-in kept for NAME's URL.

${optionsHelp(MCP_OPTIONS, 21)}

Examples:
  agentmd mcp list
  agentmd mcp login linear

Exit status: 0 on success (list: every server started), 1 when not, 2 on bad usage.`;

export interface McpListOptions {
  readonly json: boolean;
  readonly timeoutMs?: number;
}

interface ServerReport {
  readonly name: string;
  readonly scope: string;
  readonly transport: string;
  readonly definedAt: string;
  readonly status: "ready" | "failed";
  readonly error?: string;
  readonly tools: readonly string[];
  readonly prompts: readonly string[];
}

/** Runs `agentmd mcp list`; returns the exit code. */
export async function runMcpList(options: McpListOptions, io: CliIo): Promise<number> {
  const { root, specs } = projectSpecs(io);
  const style = styleFor(io.stdout, io.env);
  // Starting a server runs the project's code: only in a folder whose code is trusted.
  if (specs.length > 0 && trustState(root, trustHome(io)).kind === "untrusted") {
    io.stderr.write(
      `${untrustedServers(
        "mcp list",
        root,
        specs.map((s) => s.name),
      )}\n`,
    );
    return 1;
  }
  const hub = createMcpHub({
    timeoutMs: DEFAULT_MCP_TIMEOUT_MS,
    ...(options.timeoutMs !== undefined && { startTimeoutMs: options.timeoutMs }),
    cwd: root,
    env: io.env,
    home: trustHome(io),
  });
  let reports: ServerReport[];
  try {
    reports = await Promise.all(specs.map((s) => report(s, hub, root)));
  } finally {
    await hub.close();
  }
  if (options.json) io.stdout.write(`${JSON.stringify({ servers: reports }, null, 2)}\n`);
  else if (reports.length === 0)
    io.stdout.write("no MCP servers: add them to .mcp.json, or to mcpServers in agent.md or a subagent\n");
  else io.stdout.write(`${reports.flatMap((r) => lines(r, style)).join("\n")}\n`);
  return reports.every((r) => r.status === "ready") ? 0 : 1;
}

async function report(
  s: McpServerSpec,
  hub: ReturnType<typeof createMcpHub>,
  root: string,
): Promise<ServerReport> {
  const r = await hub.connection(s).start();
  const base = {
    name: s.name,
    scope: s.scope,
    transport: s.config.type,
    definedAt: `${path.relative(root, s.origin.file) || s.origin.file}:${s.origin.line}:${s.origin.column}`,
  };
  if (!r.ok) return { ...base, status: "failed", error: r.message, tools: [], prompts: [] };
  return {
    ...base,
    status: "ready",
    tools: r.listing.tools.map((t) => mcpToolName(s.name, t.name)),
    prompts: r.listing.prompts.map((p) => `/${mcpToolName(s.name, p.name)}`),
  };
}

function lines(r: ServerReport, style: ReturnType<typeof styleFor>): string[] {
  const where = style.dim(
    `(${r.transport}, ${r.definedAt}${r.scope === "project" ? "" : `, ${r.scope} only`})`,
  );
  if (r.status === "failed")
    return [`${style.bold(r.name)} ${where} ${style.red("failed")}`, ...indent(r.error ?? "")];
  const counts = `${r.tools.length} tool${r.tools.length === 1 ? "" : "s"}${r.prompts.length ? `, ${r.prompts.length} prompt${r.prompts.length === 1 ? "" : "s"}` : ""}`;
  return [
    `${style.bold(r.name)} ${where} ready: ${counts}`,
    ...[...r.tools, ...r.prompts].map((t) => `  ${t}`),
  ];
}

const indent = (text: string) => text.split("\n").map((l) => `  ${l}`);

/** `agentmd mcp …`: parses its arguments; `usage` makes the error main() reports as bad usage. */
export async function runMcpCommand(
  args: readonly string[],
  io: CliIo,
  usage: (message: string) => Error,
): Promise<number> {
  const { values, positionals } = parseFlags(args, MCP_OPTIONS);
  if (values.help) {
    io.stdout.write(`${MCP_HELP}\n`);
    return 0;
  }
  let timeoutMs: number | undefined;
  if (values.timeout !== undefined) {
    const s = Number(values.timeout);
    if (!(s > 0)) throw usage(`--timeout must be a number of seconds above 0, not '${values.timeout}'`);
    timeoutMs = s * 1000;
  }
  const [sub, name, ...rest] = positionals;
  if ((sub === "login" || sub === "logout") && name !== undefined && rest.length === 0) {
    const { runMcpLogin, runMcpLogout, LOGIN_WAIT_MS } = await import("./mcp-login-command.js");
    if (sub === "logout") return runMcpLogout(name, io);
    return runMcpLogin({ name, waitMs: timeoutMs ?? LOGIN_WAIT_MS, browser: !values["no-browser"] }, io);
  }
  if (sub !== "list" || positionals.length > 1)
    throw usage(
      "usage: agentmd mcp list [--json] [--timeout SECONDS] | mcp login NAME [--no-browser] | mcp logout NAME",
    );
  return runMcpList({ json: values.json, ...(timeoutMs !== undefined && { timeoutMs }) }, io);
}
