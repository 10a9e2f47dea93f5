import { statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { type Audit, type AuditSource, auditProject, auditToolNames } from "../../audit/audit.js";
import { diffAudits } from "../../audit/audit-diff.js";
import { diffCodeInputs } from "../../audit/code-diff.js";
import { type CodeInput, codeInputs } from "../../audit/code-inputs.js";
import { userDirOf } from "../../definitions/discover.js";
import { findProjectRoot, loadProject } from "../../definitions/index.js";
import { loadSettings, mcpJsonFilter } from "../../definitions/settings.js";
import { toolNames } from "../../definitions/tool-names.js";
import type { Diagnostic } from "../../definitions/types.js";
import { builtinCatalog, type ToolCatalog, toolCatalog } from "../../invocation/tool-catalog.js";
import { projectServers } from "../../mcp/project-servers.js";
import { definitionList, UNRESTRICTED } from "../../permissions/index.js";
import { isInside } from "../../shared/is-inside.js";
import { createBuiltinTools } from "../../tools/builtin/index.js";
import { inspectedTools } from "../../tools/custom/inspected-tools.js";
import { type Inventory, projectInventory } from "../../trust/inventory/inventory.js";
import { HELP_OPTION, type OptionTable, optionsHelp } from "../flags/option-table.js";
import { type CliIo, styleFor } from "../io.js";
import { printable } from "../terminal/printable.js";
import { diffJson, diffText } from "./audit-diff-format.js";
import { type AuditHeader, auditJson, auditText } from "./audit-format.js";
import { auditHtml, auditSvg } from "./audit-graph.js";
import { formatDiagnostic } from "./check-command.js";
import { mcpToolNames } from "./mcp-tool-names.js";
import { trustHome } from "./project-trust.js";
import { rebasePaths, revisionFiles } from "./revision-files.js";

/** `audit`'s options: its parser and its help's option lines. */
export const AUDIT_OPTIONS = {
  json: { type: "boolean", default: false, help: "machine-readable output" },
  graph: {
    type: "string",
    value: "FILE",
    help: [
      "also write a picture: an HTML page (or an SVG when FILE ends in",
      ".svg) with entry points on the left, hops as edges labelled with",
      "what they narrowed, dangerous capabilities in red",
    ],
  },
  diff: {
    type: "string",
    value: "REV",
    help: [
      "compare with the definitions and settings at git revision REV",
      "(read from git, not the working tree): per entry point, what",
      "was gained (+) and lost (−); and every hook, hook script, MCP",
      "server, tools/ file, settings env key, additionalDirectories,",
      "defaultMode, sandbox and baseUrl added or changed (a gain)",
    ],
  },
  mcp: {
    type: "boolean",
    default: false,
    help: [
      "start the MCP servers to list their tools (then stop them);",
      "the only flag that runs project code, refused with --diff and",
      "in a folder that is not trusted (see agentmd trust)",
    ],
  },
  ...HELP_OPTION,
} as const satisfies OptionTable;

export const AUDIT_HELP = `Usage: agentmd audit [PATH] [--json] [--graph FILE] [--diff REV] [--mcp]

Shows what every entry point of a project can do: the main agent, each /command
and user-invocable skill, each subagent run as --agent NAME. For each, every
chain of hops a model can take from it (Task, Skill, forked skills, down to the
depth limit) and the effective tools at the end of each chain, with the file and
line of every entry that shaped them. The settings' deny rules join every hop,
their approval tier and the sandbox are shown; MCP tools are taken by name from
the lists (--mcp lists them).

  PATH          the project folder (default: the project of the current folder)
${optionsHelp(AUDIT_OPTIONS, 16)}

Nothing of the project runs: no tools/ module is imported (a custom tool is
known by the name its source writes), no hook runs, no server starts (but with
--mcp) and the settings' env is not applied.

Examples:
  agentmd audit --graph audit.html
  agentmd audit --diff origin/main     in CI: exit 1 when a change widens what
                                       an entry point can do

Exit status: 0 (with --diff: nothing was gained), 1 with --diff when an entry
point gained a capability (or a looser approval or sandbox, or any code or
setting listed under --diff was added or changed), or when the project
cannot be audited (agent.md or the settings do not load), 2 on bad usage (no
such folder, an unknown revision, a folder outside a git repository).`;

export interface AuditOptions {
  readonly path?: string;
  readonly json: boolean;
  readonly graph?: string;
  readonly diff?: string;
  readonly mcp: boolean;
}

/** What the audit reads of one project, and where: the working tree, or a revision's copy. */
interface Read {
  readonly source: AuditSource;
  /** The code and settings a run depends on beyond its lists, read as text. */
  readonly code: readonly CodeInput[];
  /** The project's code as the inventory finds it, in the folder read. */
  readonly inventory: Inventory;
  readonly settingsFiles: readonly string[];
  readonly errors: readonly Diagnostic[];
}

/** Runs `agentmd audit`; returns the exit code. */
export async function runAudit(options: AuditOptions, io: CliIo): Promise<number> {
  const home = io.env.HOME ?? homedir();
  const start = path.resolve(io.cwd, options.path ?? ".");
  if (!isFolder(start)) {
    io.stderr.write(`agentmd audit: ${printable(options.path ?? start, false)} is not a folder\n`);
    return 2;
  }
  const root = findProjectRoot(start, io.env.HOME);
  // The audit runs none of the project's code: custom tools are known by the names their source
  // writes, MCP servers by name (unless --mcp starts them), and no hook runs.
  const custom = inspectedTools(root, { reserved: builtinCatalog().names });
  const catalog = toolCatalog([...createBuiltinTools(), ...custom.tools]);
  const at = { root, cwd: io.cwd, home, catalog, ...userDirOf(io.env.HOME) };
  const current = readProject(root, at);
  if (current.errors.length > 0) {
    const style = styleFor(io.stderr, io.env);
    for (const d of current.errors) io.stderr.write(`${formatDiagnostic(d, io.cwd, style)}\n`);
    io.stderr.write(
      "agentmd audit: agent.md or the settings cannot be loaded, so a run would be refused; fix them first\n",
    );
    return 1;
  }
  const mcp = options.mcp ? await startedServers(current.source, io) : undefined;
  if (mcp?.refused !== undefined) {
    io.stderr.write(`${printable(mcp.refused, false)}\n`);
    return 1;
  }
  const header: AuditHeader = {
    root,
    agentMd: current.source.definitions.find((d) => d.surface === "main")?.file ?? null,
    settings: current.settingsFiles,
    mcp: mcp?.lines ?? current.source.servers,
    mcpStarted: mcp !== undefined,
    unreadTools: custom.modules.filter((m) => m.unknown).map((m) => path.relative(root, m.file)),
    notFollowed: current.inventory.notFollowed.map((n) => `${n.what} — ${n.why} (${n.where})`),
  };
  if (options.diff !== undefined)
    return diff(options, options.diff, { current, at, mcp: mcp?.names ?? [], header }, io);
  const audit = auditProject(current.source, [...auditToolNames([current.source]), ...(mcp?.names ?? [])]);
  if (options.graph !== undefined && !writeGraph(options.graph, audit, catalog, io)) return 1;
  io.stdout.write(
    options.json
      ? `${JSON.stringify(auditJson(audit, header), null, 2)}\n`
      : `${auditText(audit, header)
          .map((l) => printable(l, false))
          .join("\n")}\n`,
  );
  return 0;
}

/** `--diff REV`: the working tree against the revision; exit 1 when anything was gained. */
async function diff(
  options: AuditOptions,
  rev: string,
  run: { current: Read; at: ReadAt; mcp: readonly string[]; header: AuditHeader },
  io: CliIo,
): Promise<number> {
  // The revision's copy holds the files the audit reads, and every file of code the working tree's
  // inventory names, so that each is compared with itself as it was.
  const inv = run.current.inventory;
  const code = inv.files.filter((f) => isInside(f.file, inv.dir)).map((f) => path.relative(inv.dir, f.file));
  const files = revisionFiles(run.at.root, rev, io.env, code);
  if (!files.ok) {
    io.stderr.write(`agentmd audit: ${printable(files.message, false)}\n`);
    return 2;
  }
  try {
    const prior = readProject(files.dir, run.at);
    const notes = [
      ...files.ignored.map((f) => `${f} is ignored by git: read from the working tree on both sides`),
      ...(prior.errors.length > 0
        ? [
            `at ${rev}, agent.md or the settings do not load (a run would be refused there), so everything counts as gained`,
          ]
        : []),
    ];
    const names = [...auditToolNames([run.current.source, prior.source]), ...run.mcp];
    const next = auditProject(run.current.source, names);
    const before = prior.errors.length > 0 ? nothingRuns(next) : auditProject(prior.source, names);
    const d = diffAudits(before, next);
    const gains = diffCodeInputs(prior.code, run.current.code);
    if (options.graph !== undefined && !writeGraph(options.graph, next, run.at.catalog, io)) return 1;
    const compared = { revision: rev, commit: files.commit, notes };
    io.stdout.write(
      options.json
        ? `${JSON.stringify(diffJson(d, compared, next, gains), null, 2)}\n`
        : `${diffText(d, compared, next, gains)
            .map((l) => printable(l, false))
            .join("\n")}\n`,
    );
    return d.widened || gains.length > 0 ? 1 : 0;
  } finally {
    files.cleanup();
  }
}

interface ReadAt {
  readonly root: string;
  readonly cwd: string;
  readonly home: string;
  readonly catalog: ToolCatalog;
  readonly userDir?: string;
}

/**
 * The definitions, settings and MCP server names found in `dir`, placed at the project root (a
 * revision's copy is read from a temporary folder, and its paths put back where they live).
 */
function readProject(dir: string, at: ReadAt): Read {
  const loaded = loadProject(dir, {
    toolNames: at.catalog.names,
    ...(at.userDir && { userDir: at.userDir }),
  });
  const settings = loadSettings(dir, at.userDir, toolNames(at.catalog.names));
  // Only the `.mcp.json` servers the settings let start (enabled/disabledMcpjsonServers), as in a run.
  const servers = projectServers(dir, loaded.definitions, {
    mcpJsonServers: mcpJsonFilter(settings.settings),
    plugins: loaded.plugins,
  });
  // As for a run: a main agent or settings that do not load refuse it; other files are left out.
  const errors = [
    ...loaded.diagnostics.filter((d) => d.severity === "error" && d.surface === "main"),
    ...(loaded.pluginErrors ?? []),
    ...settings.diagnostics.filter((d) => d.severity === "error"),
  ];
  const source: AuditSource = {
    projectDir: at.root,
    cwd: at.cwd,
    home: at.home,
    definitions: rebasePaths(loaded.definitions, dir, at.root),
    settings: rebasePaths(settings.settings, dir, at.root),
    catalog: at.catalog,
    servers: [
      ...new Set([
        ...servers.project.map((s) => s.name),
        ...loaded.definitions.flatMap((d) => servers.inlineOf(d).map((s) => s.name)),
      ]),
    ],
  };
  const inventory = projectInventory(dir, at.home);
  return {
    source,
    code: rebasePaths(codeInputs(dir, loaded.definitions, loaded.plugins, inventory), dir, at.root),
    inventory,
    settingsFiles: source.settings.files,
    errors: rebasePaths(errors, dir, at.root),
  };
}

/** A revision where nothing could run: every entry point of the other side is new. */
function nothingRuns(next: Audit): Audit {
  return { ...next, unasked: [], asks: [], entryPoints: [] };
}

/** `--mcp`: the tools of the servers the main agent's list could reach, learnt by starting them. */
async function startedServers(source: AuditSource, io: CliIo) {
  const main = source.definitions.find((d) => d.surface === "main");
  const list = main ? definitionList(main, { specs: source.catalog.specs, home: source.home }) : UNRESTRICTED;
  const agents = source.definitions.filter((d) => d.surface === "agent");
  return mcpToolNames(
    source.projectDir,
    source.definitions,
    agents,
    list,
    io.env,
    { command: "audit --mcp", home: trustHome(io) },
    mcpJsonFilter(source.settings),
  );
}

/** Writes the picture; false (and said) when the file cannot be written. */
function writeGraph(file: string, audit: Audit, catalog: ToolCatalog, io: CliIo): boolean {
  const target = path.resolve(io.cwd, file);
  const svg = target.endsWith(".svg");
  try {
    writeFileSync(target, svg ? auditSvg(audit, catalog.specs) : auditHtml(audit, catalog.specs));
  } catch (e) {
    io.stderr.write(`agentmd audit: cannot write ${printable(file, false)}: ${(e as Error).message}\n`);
    return false;
  }
  io.stderr.write(`agentmd audit: wrote ${svg ? "an SVG" : "an HTML page"} to ${printable(file, false)}\n`);
  return true;
}

function isFolder(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
