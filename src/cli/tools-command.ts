import { homedir } from "node:os";
import path from "node:path";
import { userDirOf } from "../definitions/discover.js";
import { findProjectRoot, loadProject } from "../definitions/index.js";
import type { Definition } from "../definitions/types.js";
import { builtinCatalog, toolCatalog } from "../invocation/tool-catalog.js";
import {
  canonicalToolName,
  decide,
  describeChain,
  formatChainReport,
  resolveChain,
  UNRESTRICTED,
} from "../permissions/index.js";
import { loadShellParser } from "../permissions/shell/parse-shell.js";
import { describeSandbox, formatSandboxReport, sandboxOfChain } from "../sandbox/describe-sandbox.js";
import { didYouMean } from "../shared/did-you-mean.js";
import { createBuiltinTools } from "../tools/builtin/index.js";
import { loadCustomTools } from "../tools/custom/load-custom-tools.js";
import { realPathOf } from "../tools/real-path.js";
import { formatDiagnostic } from "./check-command.js";
import { type CliIo, styleFor } from "./io.js";
import { mcpToolNames } from "./mcp-tool-names.js";
import { printable } from "./render.js";

export const TOOLS_HELP = `Usage: agentmd tools [--chain HOPS] [--json]
       agentmd tools [--chain HOPS] --try TOOL 'JSON_INPUT'

Shows what a run at the end of a chain of hops may do: each tool offered to the
model, its effective patterns and denies with the file and line each came from,
and the tools removed along the way with the hop that removed them.

  --chain HOPS  comma-separated hops: main, agent:NAME, skill:NAME, command:NAME
                (default: main), e.g. --chain main,agent:reviewer,skill:pdf-tools
  --try TOOL    judge one call of TOOL with the JSON input that follows, e.g.
                --try Bash '{"command":"git status"}'
  --sandbox     show the sandbox a run with --sandbox would have
  --json        machine-readable output

Exit status: 0 (and 0 when --try is allowed), 2 when no tool survives the chain or
on bad usage, 3 when --try is denied, 1 when the chain cannot be resolved.`;

export interface ToolsOptions {
  readonly chain: string;
  readonly json: boolean;
  readonly tryTool?: string;
  readonly tryInput?: string;
  /** As a run with `--sandbox`. */
  readonly sandbox?: boolean;
}

/** Runs `agentmd tools`; returns the exit code. */
export async function runTools(options: ToolsOptions, io: CliIo): Promise<number> {
  const root = findProjectRoot(io.cwd, io.env.HOME);
  // The project's custom tools are tools like the built-in ones; MCP tools are listed below.
  const custom = await loadCustomTools(root, { reserved: builtinCatalog().names });
  const catalog = toolCatalog([...createBuiltinTools(), ...custom.tools]);
  const loaded = loadProject(root, { toolNames: catalog.names, ...userDirOf(io.env.HOME) });
  const ctx = { specs: catalog.specs, home: io.env.HOME ?? homedir() };
  const errors = loaded.diagnostics.filter((d) => d.severity === "error");
  const style = styleFor(io.stderr, io.env);
  const mainErrors = errors.filter((d) => d.surface === "main");
  if (mainErrors.length > 0) {
    // A run would be refused; showing the tools of a main agent that did not load would be a lie.
    for (const d of mainErrors) io.stderr.write(`${formatDiagnostic(d, io.cwd, style)}\n`);
    io.stderr.write("agentmd tools: agent.md cannot be loaded, so a run would be refused; fix it first\n");
    return 1;
  }
  const chain = resolveChain(options.chain, loaded.definitions, ctx);
  if (!chain.ok) {
    io.stderr.write(`agentmd tools: ${printable(chain.error, false)}\n`);
    for (const d of errors) io.stderr.write(`${formatDiagnostic(d, io.cwd, style)}\n`);
    return 1;
  }
  const effective = chain.hops[chain.hops.length - 1]?.effective;
  // MCP tool names are known only from their servers: those the chain's first hop could offer a
  // tool of are started to list them (and stopped), and that is said.
  const chainDefs = chain.hops.flatMap((h) => (h.definition ? [h.definition] : []));
  const mcp = chain.hops[0]
    ? await mcpToolNames(root, loaded.definitions, chainDefs, chain.hops[0].effective, io.env)
    : { names: [], lines: [] };
  if (options.tryTool !== undefined && effective) {
    const known = new Set([
      ...toolNamesOf(loaded.definitions, catalog.names),
      ...catalog.names,
      ...mcp.names,
    ]);
    if (!known.has(options.tryTool) && !options.tryTool.startsWith("mcp__")) {
      const near = didYouMean(options.tryTool, known);
      io.stderr.write(
        `agentmd tools: there is no tool named '${options.tryTool}'${near ? `; did you mean '${near}'?` : ""} (a model calling it would be told it is not allowed)\n`,
      );
      return 2;
    }
    let input: unknown;
    try {
      input = JSON.parse(options.tryInput ?? "{}");
    } catch (e) {
      io.stderr.write(
        `agentmd tools: the input after --try ${options.tryTool} is not JSON: ${(e as Error).message}\n`,
      );
      return 2;
    }
    await loadShellParser();
    const d = decide(
      effective,
      { tool: options.tryTool, input },
      { specs: catalog.specs, cwd: io.cwd, realPath: realPathOf },
    );
    if (options.json) io.stdout.write(`${JSON.stringify(d)}\n`);
    else
      io.stdout.write(
        d.kind === "allowed" ? "allowed\n" : `denied (${d.reason}): ${printable(d.message, false)}\n`,
      );
    return d.kind === "allowed" ? 0 : 3;
  }
  const report = describeChain(chain.hops, [...toolNamesOf(loaded.definitions, catalog.names), ...mcp.names]);
  const main = loaded.definitions.find((d) => d.surface === "main");
  const project = { root, agentMd: main ? main.file : null };
  // Whether a run at the end of the chain is sandboxed, and what it could write and reach.
  const sandbox = await describeSandbox(
    effective ?? UNRESTRICTED,
    sandboxOfChain(chain.hops, options.sandbox === true, root),
    { specs: catalog.specs, projectDir: root, cwd: io.cwd },
    io.env,
  );
  if (options.json)
    io.stdout.write(`${JSON.stringify({ project, ...report, mcpServers: mcp.lines, sandbox }, null, 2)}\n`);
  else {
    const used = main
      ? path.relative(root, main.file)
      : "none (no agent.md: the main agent has no list of its own)";
    const lines = [`project: ${root} (agent.md: ${used})`];
    if (mcp.lines.length > 0)
      lines.push(`started MCP servers to list their tools (then stopped them): ${mcp.lines.join("; ")}`);
    lines.push(...formatChainReport(report, root), ...formatSandboxReport(sandbox));
    io.stdout.write(`${lines.map((l) => printable(l, false)).join("\n")}\n`);
  }
  return report.allowsNothing ? 2 : 0;
}

/** agentmd's own tools, and any other names the project's lists mention (MCP tools, …). */
function toolNamesOf(definitions: readonly Definition[], builtin: readonly string[]): string[] {
  const names = new Set(builtin.filter((n) => canonicalToolName(n) === n));
  for (const d of definitions) {
    for (const e of [...(d.allowedTools?.entries ?? []), ...(d.disallowedTools?.entries ?? [])]) {
      if (!e.name.includes("*")) names.add(e.name);
    }
  }
  return [...names];
}
