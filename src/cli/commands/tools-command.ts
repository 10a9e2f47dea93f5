import { homedir } from "node:os";
import path from "node:path";
import { userDirOf } from "../../definitions/discover.js";
import { findProjectRoot, loadProject } from "../../definitions/index.js";
import { type ClaudeSettings, loadSettings, mcpJsonFilter } from "../../definitions/settings.js";
import { toolNames } from "../../definitions/tool-names.js";
import type { Definition, Diagnostic } from "../../definitions/types.js";
import {
  createApprovals,
  listApproves,
  type PermissionOptions,
  sessionPermissions,
} from "../../invocation/approvals.js";
import { runnerDenyList } from "../../invocation/runner-deny-list.js";
import { builtinCatalog, type ToolCatalog, toolCatalog } from "../../invocation/tool-catalog.js";
import { admitCall, type CallApproval, resultText } from "../../loop/execute-call.js";
import { projectServers } from "../../mcp/project-servers.js";
import {
  type ChainReport,
  decide,
  denialText,
  describeChain,
  formatChainReport,
  intersect,
  resolveChain,
  UNRESTRICTED,
} from "../../permissions/index.js";
import { loadShellParser } from "../../permissions/shell/parse-shell.js";
import type { DecideContext, Decision, PermissionList, ToolCall } from "../../permissions/types.js";
import { describeSandbox, formatSandboxReport, sandboxOfChain } from "../../sandbox/describe-sandbox.js";
import { didYouMean } from "../../shared/did-you-mean.js";
import { ConfigError } from "../../shared/errors.js";
import { createBuiltinTools } from "../../tools/builtin/index.js";
import { inspectedTools } from "../../tools/custom/inspected-tools.js";
import { unknownNameMessage } from "../../tools/custom/read-tool-names.js";
import { readTextOf } from "../../tools/read-text.js";
import { realPathOf } from "../../tools/real-path.js";
import { offeredUnderApproval } from "../../tools/registry.js";
import type { SchemaValidationMode } from "../../tools/types.js";
import { type CliIo, styleFor } from "../io.js";
import { describeApproval } from "../terminal/describe-approval.js";
import { printable } from "../terminal/printable.js";
import { formatDiagnostic } from "./check-command.js";
import { mcpToolNames } from "./mcp-tool-names.js";
import { trustHome } from "./project-trust.js";
import { toolNamesOf } from "./tool-names-of.js";

export { TOOLS_HELP, TOOLS_OPTIONS } from "./tools-options.js";

export interface ToolsOptions {
  readonly chain: string;
  readonly json: boolean;
  readonly tryTool?: string;
  readonly tryInput?: string;
  /** As a run with `--sandbox`. */
  readonly sandbox?: boolean;
  /** Start the MCP servers the chain could reach, to list their tools (never by default). */
  readonly mcp?: boolean;
  /** As a run with `--permission-mode`, `--allowedTools`, `--disallowedTools`. */
  readonly permissions?: Omit<PermissionOptions, "approve">;
}

/** Runs `agentmd tools`; returns the exit code. */
export async function runTools(options: ToolsOptions, io: CliIo): Promise<number> {
  const root = findProjectRoot(io.cwd, io.env.HOME);
  // The project's custom tools are tools like the built-in ones, known by the names their source
  // writes (no module is imported); MCP tools are listed below.
  const custom = inspectedTools(root, { reserved: builtinCatalog().names });
  const catalog = toolCatalog([...createBuiltinTools(), ...custom.tools]);
  const user = userDirOf(io.env.HOME);
  const loaded = loadProject(root, { toolNames: catalog.names, ...user });
  const home = io.env.HOME ?? homedir();
  const ctx = { specs: catalog.specs, home };
  const errors = loaded.diagnostics.filter((d) => d.severity === "error");
  const style = styleFor(io.stderr, io.env);
  const mainErrors = errors.filter((d) => d.surface === "main");
  if (mainErrors.length > 0) {
    // A run would be refused; showing the tools of a main agent that did not load would be a lie.
    for (const d of mainErrors) io.stderr.write(`${formatDiagnostic(d, io.cwd, style)}\n`);
    io.stderr.write("agentmd tools: agent.md cannot be loaded, so a run would be refused; fix it first\n");
    return 1;
  }
  const main = loaded.definitions.find((d) => d.surface === "main");
  const session = sessionOf(options, { root, cwd: io.cwd, home, ...user }, catalog, listApproves(main));
  if (!session.ok) {
    for (const d of session.diagnostics) io.stderr.write(`${formatDiagnostic(d, io.cwd, style)}\n`);
    io.stderr.write(`agentmd tools: ${printable(session.message, false)}\n`);
    return session.code;
  }
  const chain = resolveChain(options.chain, loaded.definitions, ctx, session.denied);
  if (!chain.ok) {
    io.stderr.write(`agentmd tools: ${printable(chain.error, false)}\n`);
    for (const d of errors) io.stderr.write(`${formatDiagnostic(d, io.cwd, style)}\n`);
    return 1;
  }
  const effective = chain.hops[chain.hops.length - 1]?.effective ?? UNRESTRICTED;
  // MCP tool names are known only from their servers: with --mcp, those the chain's first hop
  // could offer a tool of are started to list them (and stopped), and that is said.
  const chainDefs = chain.hops.flatMap((h) => (h.definition ? [h.definition] : []));
  const mcp =
    options.mcp === true && chain.hops[0]
      ? await mcpToolNames(
          root,
          loaded.definitions,
          chainDefs,
          chain.hops[0].effective,
          io.env,
          { command: "tools --mcp", home: trustHome(io) },
          session.mcpJsonServers,
        )
      : { names: [], lines: [] };
  if (mcp.refused !== undefined) {
    io.stderr.write(`${printable(mcp.refused, false)}\n`);
    return 1;
  }
  const listed = toolNamesOf(loaded.definitions, catalog.names, options.mcp === true ? mcp.names : undefined);
  const names = [...listed.offerable, ...mcp.names];
  if (options.tryTool !== undefined) {
    const approval = createApprovals(session.policy, { ...ctx, projectDir: root }, undefined);
    const known = [...new Set([...names, ...listed.unprovided, ...catalog.names])];
    // A run is also bound by the runner's own denies (its sessions, the protected paths).
    const own = runnerDenyList(main, session.claude, {}, { ...ctx, projectDir: root });
    const list = intersect(effective, own);
    return tryCall(options, { list, approval, names: known, catalog, main }, io);
  }
  const approvals = createApprovals(session.policy, { ...ctx, projectDir: root }, undefined);
  const report = withoutUnaskedServerTools(describeChain(chain.hops, names), catalog, approvals, effective);
  const project = { root, agentMd: main ? main.file : null };
  // Whether a run at the end of the chain is sandboxed, and what it could write and reach.
  const sandbox = await describeSandbox(
    effective,
    sandboxOfChain(chain.hops, options.sandbox === true, root),
    { specs: catalog.specs, projectDir: root, cwd: io.cwd },
    io.env,
  );
  const approval = describeApproval(session.policy);
  const unread = custom.modules.filter((m) => m.unknown).map((m) => path.relative(root, m.file));
  const unstarted = options.mcp ? [] : serverNames(root, loaded.definitions, session.mcpJsonServers);
  if (options.json)
    io.stdout.write(
      `${JSON.stringify({ project, ...report, notProvided: listed.unprovided, approval, mcpServers: mcp.lines, unstartedMcpServers: unstarted, unreadToolModules: unread, sandbox }, null, 2)}\n`,
    );
  else {
    const used = main
      ? path.relative(root, main.file)
      : "none (no agent.md: the main agent has no list of its own)";
    const lines = [`project: ${root} (agent.md: ${used})`];
    for (const file of session.files) lines.push(`settings: ${path.relative(root, file) || file}`);
    for (const notice of session.notices) lines.push(`warning: ${notice}`);
    if (mcp.lines.length > 0)
      lines.push(`started MCP servers to list their tools (then stopped them): ${mcp.lines.join("; ")}`);
    else if (unstarted.length > 0)
      lines.push(`MCP servers (not started; --mcp starts them to list their tools): ${unstarted.join(", ")}`);
    for (const rel of unread) lines.push(`custom tools: ${unknownNameMessage(rel)}`);
    lines.push(...formatChainReport(report, root));
    if (listed.unprovided.length > 0)
      lines.push(`named in a list, but no tool of a run has the name: ${listed.unprovided.join(", ")}`);
    lines.push(...approval.lines, ...formatSandboxReport(sandbox));
    io.stdout.write(`${lines.map((l) => printable(l, false)).join("\n")}\n`);
  }
  return report.allowsNothing ? 2 : 0;
}

/** The MCP servers a run could start, by name (none is started). */
function serverNames(
  root: string,
  definitions: readonly Definition[],
  mcpJsonServers: ReturnType<typeof mcpJsonFilter>,
): string[] {
  const servers = projectServers(root, definitions, { mcpJsonServers });
  return [
    ...new Set([
      ...servers.project.map((s) => s.name),
      ...definitions.flatMap((d) => servers.inlineOf(d).map((s) => s.name)),
    ]),
  ];
}

type Session =
  | ({
      ok: true;
      files: readonly string[];
      mcpJsonServers: ReturnType<typeof mcpJsonFilter>;
      claude: ClaudeSettings;
    } & ReturnType<typeof sessionPermissions>)
  | { ok: false; code: number; message: string; diagnostics: readonly Diagnostic[] };

/** The settings and flags a run would have: its deny rules and approval tier, or why it would be refused. */
function sessionOf(
  options: ToolsOptions,
  at: { root: string; cwd: string; home: string; userDir?: string },
  catalog: ToolCatalog,
  mainApproves: boolean,
): Session {
  const known = toolNames(catalog.names);
  const loaded = loadSettings(at.root, at.userDir, known);
  const errors = loaded.diagnostics.filter((d) => d.severity !== "info");
  if (errors.some((d) => d.severity === "error"))
    return {
      ok: false,
      code: 1,
      message: "the settings cannot be used, so a run would be refused; fix them first",
      diagnostics: errors,
    };
  try {
    const permissions = sessionPermissions({
      given: options.permissions ?? {},
      claude: loaded.settings,
      mainApproves,
      known,
      ctx: { specs: catalog.specs, projectDir: at.root, home: at.home },
      workingDirs: [at.root, at.cwd],
    });
    return {
      ok: true,
      files: loaded.settings.files,
      mcpJsonServers: mcpJsonFilter(loaded.settings),
      claude: loaded.settings,
      ...permissions,
    };
  } catch (e) {
    if (e instanceof ConfigError) return { ok: false, code: 2, message: e.message, diagnostics: [] };
    throw e;
  }
}

/** What `--try` judges a call in: the run's tools and list, as the chain's last hop would have them. */
interface TryRun {
  readonly list: PermissionList;
  readonly approval: CallApproval;
  readonly names: readonly string[];
  readonly catalog: ToolCatalog;
  /** The main agent, whose `schemaValidation` a run's gate follows. */
  readonly main: { readonly schemaValidation?: SchemaValidationMode } | undefined;
}

/** `--try TOOL 'JSON'`: the executor's verdict (lists and schema gate), then the approval tier's. */
async function tryCall(options: ToolsOptions, run: TryRun, io: CliIo): Promise<number> {
  const tool = options.tryTool ?? "";
  if (!run.names.includes(tool) && !tool.startsWith("mcp__")) {
    const near = didYouMean(tool, run.names);
    io.stderr.write(
      `agentmd tools: there is no tool named '${tool}'${near ? `; did you mean '${near}'?` : ""} (a model calling it would be told it is not allowed)\n`,
    );
    return 2;
  }
  let input: unknown;
  try {
    input = JSON.parse(options.tryInput ?? "{}");
  } catch (e) {
    io.stderr.write(`agentmd tools: the input after --try ${tool} is not JSON: ${(e as Error).message}\n`);
    return 2;
  }
  const judged = {
    specs: run.catalog.specs,
    cwd: io.cwd,
    realPath: realPathOf,
    readFile: readTextOf,
    shell: await loadShellParser(),
  };
  const verdict = await judgedAsInRun({ tool, input }, run, judged);
  if (verdict.kind === "invalid") {
    if (options.json) io.stdout.write(`${JSON.stringify(verdict)}\n`);
    else io.stdout.write(`invalid input: ${printable(verdict.message, false)}\n`);
    return 3;
  }
  const { decision: d, call } = verdict;
  const a = d.kind === "allowed" ? run.approval.check(call, judged, [], run.list) : undefined;
  if (options.json)
    io.stdout.write(`${JSON.stringify(a ? { ...shownDecision(d), approval: a } : shownDecision(d))}\n`);
  else if (d.kind === "denied") io.stdout.write(`denied (${d.reason}): ${printable(denialText(d), false)}\n`);
  else if (a?.kind === "denied") io.stdout.write(`denied (mode): ${printable(a.message, false)}\n`);
  else if (a?.kind === "ask")
    io.stdout.write(
      `needs approval (${a.reason}): chat asks a user; agentmd run denies it: ${printable(run.approval.howToAllow(call, a.reason), false)}\n`,
    );
  else io.stdout.write("allowed\n");
  if (d.kind === "denied" || a?.kind === "denied") return 3;
  return a?.kind === "ask" ? 4 : 0;
}

/**
 * The call judged as a run's executor judges it (input normalised, keys restored, the lists, then
 * the schema gate) when the tool is one of the project's; Task, Skill and MCP tools are made per
 * run, so their calls are judged by the lists on the input as given.
 */
async function judgedAsInRun(
  call: ToolCall,
  run: TryRun,
  judged: DecideContext,
): Promise<
  | { readonly kind: "judged"; readonly decision: Decision; readonly call: ToolCall }
  | { readonly kind: "invalid"; readonly message: string }
> {
  if (!run.catalog.registry.get(call.tool))
    return { kind: "judged", decision: decide(run.list, call, judged), call };
  const cx = {
    registry: run.catalog.registry,
    state: { list: run.list },
    cwd: judged.cwd,
    logger: QUIET,
    gateMode: run.main?.schemaValidation ?? "enforce",
  };
  const a = await admitCall({ id: "try", name: call.tool, input: call.input }, cx);
  if (a.kind === "invalid") return { kind: "invalid", message: resultText(a.result) };
  if (a.kind === "denied") return { kind: "judged", decision: a.denial, call };
  return { kind: "judged", decision: { kind: "allowed" }, call: { tool: a.tool.name, input: a.input } };
}

const QUIET = { debug: () => {}, warn: () => {} };

/** A decision as `--json` prints it: its reason and its sentence. */
function shownDecision(d: Decision) {
  return d.kind === "denied" ? { kind: d.kind, reason: d.reason, message: denialText(d) } : d;
}

/**
 * A tool that runs on the API's side (WebSearch) is offered only within what runs without asking,
 * as a run offers it (src/invocation/run-tools.ts): the report says so instead of listing it.
 */
function withoutUnaskedServerTools(
  report: ChainReport,
  catalog: ToolCatalog,
  approvals: ReturnType<typeof createApprovals>,
  list: PermissionList,
): ChainReport {
  const server = catalog.registry.all.filter((r) => r.tool.server);
  const offered = new Set(offeredUnderApproval(server, list, approvals).map((t) => t.tool.name));
  const gone = server.map((r) => r.tool.name).filter((n) => !offered.has(n));
  if (gone.length === 0) return report;
  return {
    ...report,
    offered: report.offered.filter((t) => !gone.includes(t.name)),
    removed: [
      ...report.removed,
      ...gone
        .filter((n) => report.offered.some((t) => t.name === n))
        .map((name) => ({
          name,
          hop: "the approval tier",
          why: "it runs on the API's side, where no call can be asked about: offered only when pre-approved (permissions.allow or --allowedTools)",
        })),
    ],
  };
}
