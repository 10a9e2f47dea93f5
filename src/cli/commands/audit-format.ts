import path from "node:path";
import type { Audit, EntryAudit, ReachedGrant } from "../../audit/audit.js";
import { nodesOf } from "../../audit/audit.js";
import type { AuditNode } from "../../audit/audit-walk.js";
import {
  admitsNothing,
  type Grant,
  grantOrigins,
  grantText,
  type ShownPaths,
} from "../../permissions/capabilities.js";
import type { Origin } from "../../permissions/types.js";
import { unknownNameMessage } from "../../tools/custom/read-tool-names.js";

/** Where the audit's project is, for relative file names. */
export interface AuditHeader {
  readonly root: string;
  readonly agentMd: string | null;
  /** Settings files read, as given. */
  readonly settings: readonly string[];
  /** MCP servers configured, or one line a server when they were started (`--mcp`). */
  readonly mcp: readonly string[];
  readonly mcpStarted: boolean;
  /** Tool modules whose tool names cannot be read without running them (relative). */
  readonly unreadTools?: readonly string[];
  /** What the inventory of the project's code could not follow (a path built at run time, a remote script). */
  readonly notFollowed?: readonly string[];
}

/** A file as a reader finds it: relative to the project, `~/…` at home, else absolute. */
export function shownFile(file: string, at: ShownPaths): string {
  for (const [dir, lead] of [
    [at.projectDir, ""],
    [at.home, "~/"],
  ] as const) {
    const rel = path.relative(dir, file);
    if (rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel)) return `${lead}${rel}`;
  }
  return file;
}

const shownOrigin = (o: Origin, at: ShownPaths) => `${shownFile(o.file, at)}:${o.line}:${o.column}`;

/** `agent.md:5:16, agents/reviewer.md:4:8; deny agent.md:6:19` */
export function shapedBy(g: Grant, at: ShownPaths): string[] {
  const denies = new Set(g.denies.map((d) => d.origin));
  return [...new Set(grantOrigins(g).map((o) => `${denies.has(o) ? "deny " : ""}${shownOrigin(o, at)}`))];
}

export const grantJson = (g: Grant, at: ShownPaths) => ({
  tool: g.tool,
  text: grantText(g, at),
  shapedBy: shapedBy(g, at),
  ...(admitsNothing(g) && { admitsNothing: true }),
});

export const reachedJson = (r: ReachedGrant, at: ShownPaths) => ({
  ...grantJson(r.grant, at),
  chain: r.chain,
});

const hopOf = (n: AuditNode) => (n.kind === "skill" ? "inline-skill" : n.kind);

function nodeJson(n: AuditNode, at: ShownPaths) {
  return {
    chain: n.chain,
    hop: hopOf(n),
    ...(n.definition && { file: shownFile(n.definition.file, at) }),
    ...(n.run && { depth: n.run.depth, sandboxed: n.run.sandbox !== undefined }),
    ...(n.failed !== undefined && { notStarted: n.failed }),
    ...(n.notFollowed && {
      notFollowed:
        n.notFollowed.kind === "inline"
          ? { why: "inline" }
          : n.notFollowed.same
            ? { why: "repeat", sameAs: n.notFollowed.of }
            : { why: "narrower", within: n.notFollowed.of },
    }),
    ...(n.depthLimit && { depthLimit: true }),
    tools: n.grants.map((g) => grantJson(g, at)),
  };
}

/** `agentmd audit --json`: versioned, every path relative to the project. */
export function auditJson(a: Audit, h: AuditHeader) {
  return {
    version: 1,
    project: { root: h.root, agentMd: h.agentMd && shownFile(h.agentMd, a) },
    settings: h.settings.map((f) => shownFile(f, a)),
    approval: {
      mode: a.mode,
      runsWithoutAsking: a.unasked.map((g) => grantJson(g, a)),
      asksEachTime: a.asks.map((g) => grantJson(g, a)),
    },
    maxDepth: a.maxDepth,
    mcpServers: { started: h.mcpStarted, servers: h.mcp },
    unreadToolModules: h.unreadTools ?? [],
    notFollowed: h.notFollowed ?? [],
    entryPoints: a.entryPoints.map((e) => ({
      name: e.name,
      kind: e.kind,
      ...(e.definition && { file: shownFile(e.definition.file, a) }),
      ...(e.definition?.plugin && { plugin: e.definition.plugin.id }),
      sandboxed: e.sandboxed,
      hooks: e.hooks,
      dangers: [
        ...e.dangers.map((d) => ({ ...d.danger, chain: d.chain })),
        ...(a.mode === "bypassPermissions" ? [BYPASS] : []),
      ],
      capabilities: e.grants.map((r) => reachedJson(r, a)),
      runs: e.runs.map((r) => ({ as: r.as, capabilities: r.grants.map((g) => reachedJson(g, a)) })),
      chains: nodesOf(e.root).map((n) => nodeJson(n, a)),
    })),
  };
}

const BYPASS = {
  kind: "bypass-permissions",
  text: "every call the lists allow runs without asking (bypassPermissions)",
} as const;

/** The report as text: a header, then a table per entry point. */
export function auditText(a: Audit, h: AuditHeader): string[] {
  const lines = [`project: ${h.root} (agent.md: ${h.agentMd ? shownFile(h.agentMd, a) : "none"})`];
  for (const f of h.settings) lines.push(`settings: ${shownFile(f, a)}`);
  lines.push(...approvalLines(a));
  lines.push(
    `depth limit: ${a.maxDepth} (maxDepth): a chain nests at most ${a.maxDepth} runs below its start`,
  );
  if (h.mcp.length > 0)
    lines.push(
      h.mcpStarted
        ? `MCP servers (started to list their tools, then stopped): ${h.mcp.join("; ")}`
        : `MCP servers: ${h.mcp.join(", ")} (tools by name; --mcp starts them to list their tools)`,
    );
  for (const rel of h.unreadTools ?? [])
    lines.push(`custom tools: ${unknownNameMessage(rel)} (counted as any tool: it may do anything)`);
  for (const n of h.notFollowed ?? []) lines.push(`not followed: ${n}`);
  for (const e of a.entryPoints) lines.push("", ...entryText(e, a));
  return lines;
}

function approvalLines(a: Audit): string[] {
  const lines = [`approval: ${a.mode} mode`];
  if (a.mode === "bypassPermissions") lines.push(`  ${BYPASS.text}`);
  else if (a.listApproves)
    lines.push("  agent.md's list is the approval: every call it allows runs without asking");
  else
    lines.push(
      `  runs without asking: ${a.unasked.map((g) => grantText(g, a)).join(", ") || "nothing pre-approved (permissions.allow)"}`,
    );
  if (a.asks.length > 0) lines.push(`  asks each time: ${a.asks.map((g) => grantText(g, a)).join(", ")}`);
  return lines;
}

function entryText(e: EntryAudit, a: Audit): string[] {
  const nodes = nodesOf(e.root);
  const dangers = [
    ...e.dangers.map((d) => `${d.danger.text} (${d.chain.join(" → ")})`),
    ...(a.mode === "bypassPermissions" ? [BYPASS.text] : []),
  ];
  const lines = [
    `${e.name}${e.definition ? `  [${e.definition.plugin ? `plugin ${e.definition.plugin.id}: ` : ""}${shownFile(e.definition.file, a)}]` : "  (no agent.md: no list of its own)"}`,
    `  chains: ${nodes.length} · commands sandboxed: ${e.sandboxed} · dangerous: ${dangers.length > 0 ? dangers.join("; ") : "none"}`,
    ...wrap(`  can do: ${e.grants.map((r) => grantText(r.grant, a)).join(", ") || "nothing"}`, "          "),
    ...hookLines(e),
  ];
  for (const n of nodes) {
    lines.push(`  ${n.chain.join(" → ")}${noteOf(n, a.maxDepth)}`);
    // The same run's tools are printed where it was first reached; a narrower run's are its own.
    if (n.notFollowed?.kind === "repeat" && n.notFollowed.same) continue;
    const rows = n.grants.map(
      (g) =>
        [
          `${grantText(g, a)}${admitsNothing(g) ? " — admits nothing" : ""}`,
          shapedBy(g, a).join(", "),
        ] as const,
    );
    const width = Math.max(0, ...rows.map(([t]) => t.length));
    for (const [t, by] of rows) lines.push(`    ${t.padEnd(width)}  ${by}`.trimEnd());
  }
  return lines;
}

/** Which hooks guard the entry point: each event's hooks, what they run, where they were written. */
function hookLines(e: EntryAudit): string[] {
  if (e.hooks.length === 0) return ["  hooks: none"];
  return [
    "  hooks:",
    ...e.hooks.map(
      (h) =>
        `    ${h.event}${h.matcher === "*" ? "" : `(${h.matcher})`}: ${h.runs}  [${h.origin}] in ${h.in.join(", ")}`,
    ),
  ];
}

function noteOf(n: AuditNode, maxDepth: number): string {
  const def = n.definition;
  const forkAs = def && "agent" in def && def.agent ? ` as agent:${def.agent}` : "";
  const how =
    n.kind === "task"
      ? "  (Task)"
      : n.kind === "skill"
        ? "  (Skill, inline: narrows this run; what it could start, the run can already)"
        : n.kind === "fork"
          ? `  (Skill, fork${forkAs})`
          : def && "context" in def && def.context === "fork"
            ? `  (fork${forkAs})`
            : "";
  const sandboxed = n.run?.sandbox ? "  [sandboxed]" : "";
  if (n.failed !== undefined) return `${how} — not started: ${n.failed}`;
  if (n.notFollowed?.kind === "repeat")
    return n.notFollowed.same
      ? `${how}${sandboxed} — the same run as ${n.notFollowed.of.join(" → ")}: not followed again`
      : `${how}${sandboxed} — a narrower run than ${n.notFollowed.of.join(" → ")}: not followed further`;
  const limit = n.depthLimit
    ? ` — Task is not offered here: the depth limit (maxDepth ${maxDepth}) is reached`
    : "";
  return `${how}${sandboxed}${limit}`;
}

/** Greedy wrap at 100 columns on ", ", continuing lines with `indent`. */
export function wrap(text: string, indent: string, width = 100): string[] {
  const parts = text.split(", ");
  const lines: string[] = [];
  let line = "";
  for (const p of parts) {
    const next = line === "" ? p : `${line}, ${p}`;
    if (line !== "" && next.length > width) {
      lines.push(`${line},`);
      line = `${indent}${p}`;
    } else line = next;
  }
  lines.push(line);
  return lines;
}
