import type { ClaudeSettings, PermissionMode } from "../definitions/settings.js";
import { settingsHooks } from "../definitions/settings-hooks.js";
import { toolNames } from "../definitions/tool-names.js";
import type { Definition, MainAgentDefinition, ToolEntry } from "../definitions/types.js";
import { listApproves, sessionPermissions } from "../invocation/approvals.js";
import { createHopCore } from "../invocation/hop-core.js";
import { resolveSettings } from "../invocation/settings.js";
import type { ToolCatalog } from "../invocation/tool-catalog.js";
import { mergeHooks } from "../loop/hooks.js";
import { admitsNothing, type Grant, grantsOf, widestGrants } from "../permissions/capabilities.js";
import { type Danger, dangerOf } from "../permissions/dangerous-grants.js";
import { intersect, UNRESTRICTED } from "../permissions/permission-list.js";
import { canonicalToolName, isMcpServerName } from "../permissions/tool-matcher.js";
import { type AuditNode, type EntryPoint, walkEntryPoints } from "./audit-walk.js";

/** A project as `agentmd audit` reads it: its definitions and settings, from the working tree or a revision. */
export interface AuditSource {
  readonly projectDir: string;
  readonly cwd: string;
  readonly home: string;
  readonly definitions: readonly Definition[];
  readonly settings: ClaudeSettings;
  /** The tools a run can have: the built-in ones and the project's own. */
  readonly catalog: ToolCatalog;
  /** The names of the MCP servers it configures (their tools are known only by starting them). */
  readonly servers: readonly string[];
}

/** A grant and the first chain of hops (breadth first) that reaches it. */
export interface ReachedGrant {
  readonly grant: Grant;
  readonly chain: readonly string[];
}

/** What one run (the main agent, a subagent, a forked skill) may do over every chain that reaches it. */
export interface RunAudit {
  /** `main`, `agent:NAME`, `skill:NAME`: who the run runs as. */
  readonly as: string;
  readonly grants: readonly ReachedGrant[];
}

export interface EntryAudit extends EntryPoint {
  /** What its chains may do together: the widest grants, each with a chain that reaches it. */
  readonly grants: readonly ReachedGrant[];
  /** The same, run by run: every hop narrows, so a run's own grants say what a change to it gained. */
  readonly runs: readonly RunAudit[];
  readonly dangers: readonly { readonly danger: Danger; readonly chain: readonly string[] }[];
  /** Whether the commands of its runs run inside the sandbox: in all, some or none of them. */
  readonly sandboxed: "all" | "some" | "none";
  /** The hooks that fire in its runs, each with the runs it fires in. */
  readonly hooks: readonly GuardingHook[];
}

/** A hook as the audit lists it: its event and matcher, what it runs, where it was written. */
export interface GuardingHook {
  readonly event: string;
  readonly matcher: string;
  /** The command, or `(a function)` for one given in code. */
  readonly runs: string;
  readonly origin: string;
  /** Who the runs it fires in run as (`main`, `agent:NAME`, …). */
  readonly in: readonly string[];
}

export interface Audit {
  readonly projectDir: string;
  readonly home: string;
  readonly maxDepth: number;
  readonly mode: PermissionMode;
  /** agent.md's list is the approval: every call it allows runs without asking. */
  readonly listApproves: boolean;
  /** What runs without asking: agent.md's list, or else the settings' pre-approvals (both within the deny rules). */
  readonly unasked: readonly Grant[];
  /** What asks each time (`permissions.ask`). */
  readonly asks: readonly Grant[];
  readonly entryPoints: readonly EntryAudit[];
}

/**
 * Everything each entry point of a project can reach, as a run would prepare it: the session's
 * deny rules and approval tier from the settings, the lists intersected hop by hop. `names` are the
 * tools grants are computed over (`auditToolNames`): the same names on both sides of a diff.
 */
export function auditProject(source: AuditSource, names: readonly string[]): Audit {
  const main = source.definitions.find((d): d is MainAgentDefinition => d.surface === "main");
  const ctx = { specs: source.catalog.specs, projectDir: source.projectDir, home: source.home };
  const session = sessionPermissions({
    given: {},
    claude: source.settings,
    mainApproves: listApproves(main),
    known: toolNames(source.catalog.names),
    ctx,
    workingDirs: [source.projectDir, source.cwd],
  });
  const core = createHopCore({
    projectDir: source.projectDir,
    cwd: source.cwd,
    home: source.home,
    definitions: source.definitions,
    catalog: source.catalog,
    settings: resolveSettings({}, main),
    hooks: mergeHooks(main?.hooks, settingsHooks(source.settings)),
    denied: session.denied,
  });
  const specs = source.catalog.specs;
  const unasked = intersect(core.ceiling, session.policy.preApproved ?? UNRESTRICTED);
  return {
    projectDir: source.projectDir,
    home: source.home,
    maxDepth: core.settings.maxDepth,
    mode: session.policy.mode,
    listApproves: session.policy.preApproved === null,
    unasked: grantsOf(unasked, names, specs).filter((g) => !admitsNothing(g)),
    asks: session.policy.ask ? grantsOf(session.policy.ask, names, specs) : [],
    entryPoints: walkEntryPoints(core, names).map((e) => entryAudit(e, source)),
  };
}

function entryAudit(entry: EntryPoint, source: AuditSource): EntryAudit {
  const nodes = nodesOf(entry.root);
  const grants = widestReached(nodes);
  const runs = [...new Set(nodes.map((n) => n.runAs))].map((as) => ({
    as,
    grants: widestReached(nodes.filter((n) => n.runAs === as)),
  }));
  const dangers = grants.flatMap(({ grant, chain }) => {
    const danger = dangerOf(grant, source.catalog.specs, source.projectDir);
    return danger ? [{ danger, chain }] : [];
  });
  const started = nodes.filter((n) => n.run);
  const inside = started.filter((n) => n.run?.sandbox).length;
  const sandboxed = inside === 0 ? "none" : inside === started.length ? "all" : "some";
  return { ...entry, grants, runs, dangers, sandboxed, hooks: guardingHooks(nodes) };
}

/** Every hook of every run an entry point reaches, once, with the runs it fires in. */
function guardingHooks(nodes: readonly AuditNode[]): GuardingHook[] {
  const found = new Map<string, GuardingHook & { in: string[] }>();
  for (const n of nodes) {
    for (const [event, list] of Object.entries(n.run?.hooks ?? {}))
      for (const h of list ?? []) {
        const runs = "command" in h ? h.command : "(a function)";
        const matcher = h.matcher === undefined || h.matcher === "" || h.matcher === ".*" ? "*" : h.matcher;
        const origin = h.origin ?? "library";
        const key = JSON.stringify([event, matcher, runs, origin]);
        const seen = found.get(key) ?? { event, matcher, runs, origin, in: [] };
        if (!seen.in.includes(n.runAs)) seen.in.push(n.runAs);
        found.set(key, seen);
      }
  }
  return [...found.values()];
}

/**
 * The widest grants of some nodes, each with the first chain (breadth first) that reaches it; a
 * grant its denies empty (`Bash(git push:*)` allowed and denied) is no capability.
 */
function widestReached(nodes: readonly AuditNode[]): ReachedGrant[] {
  const reached = nodes.flatMap((n) =>
    n.grants.filter((g) => !admitsNothing(g)).map((grant) => ({ grant, chain: n.chain })),
  );
  return widestGrants(reached.map((r) => r.grant)).map(
    (g) => reached.find((r) => r.grant === g) as ReachedGrant,
  );
}

/** Every node of a walk, breadth first (the order chains are first reached in). */
export function nodesOf(root: AuditNode): AuditNode[] {
  const out: AuditNode[] = [root];
  for (let i = 0; i < out.length; i++) out.push(...(out[i] as AuditNode).children);
  return out;
}

/**
 * The names grants are computed over: the catalog's tools, every name a list or a settings rule
 * writes, `mcp__server__*` for each configured server (and each server a list names), and `*` for
 * any tool named nowhere. Give it every side of a comparison.
 */
export function auditToolNames(sources: readonly AuditSource[]): string[] {
  const names = new Set<string>();
  const other = new Set<string>();
  for (const s of sources) {
    for (const n of s.catalog.names) names.add(canonicalToolName(n));
    for (const server of s.servers) other.add(`mcp__${server}__*`);
    const entries: ToolEntry[] = [
      ...s.definitions.flatMap((d) => [
        ...(d.allowedTools?.entries ?? []),
        ...(d.disallowedTools?.entries ?? []),
      ]),
      ...s.settings.allow,
      ...s.settings.deny,
      ...s.settings.ask,
    ];
    for (const e of entries) {
      const n = canonicalToolName(e.name);
      if (n !== "*") other.add(isMcpServerName(n) ? `${n}__*` : n);
    }
  }
  for (const n of names) other.delete(n);
  return [...names, ...[...other].sort(), "*"];
}
