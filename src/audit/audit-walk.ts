import type { Definition } from "../definitions/types.js";
import { childCaller, userCaller } from "../invocation/callers.js";
import { allowedSubagents, runStarts } from "../invocation/catalog.js";
import { findInvocable, slashNames } from "../invocation/find-invocable.js";
import type { HopCore } from "../invocation/hop-core.js";
import { prepareRun, resolveInvocable } from "../invocation/prepare-run.js";
import type { Prepared, RunRequest, RunSpec } from "../invocation/run-types.js";
import { admitsNothing, type Grant, grantCovers, grantsOf } from "../permissions/capabilities.js";

/** How a hop is taken: a user's start, Task, an inline skill, or a skill that runs on its own. */
export type HopKind = "entry" | "task" | "skill" | "fork";

/** One run a chain of hops reaches (or, for an inline skill, the run it narrows). */
export interface AuditNode {
  /** Hop labels from the start, as `agentmd tools --chain` writes them: `main`, `agent:reviewer`. */
  readonly chain: readonly string[];
  readonly kind: HopKind;
  /** Who the run runs as: `main` (the main agent, also narrowed by a command or inline skill), `agent:NAME`, `skill:NAME` (a fork). */
  readonly runAs: string;
  readonly definition?: Definition;
  /** The run; absent when the hop cannot be taken. */
  readonly run?: RunSpec;
  /** What the run may do, over the audit's tool names. */
  readonly grants: readonly Grant[];
  /** Why the hop cannot be taken: nothing survives the lists, an `agent:` that may not be started, … */
  readonly failed?: string;
  /**
   * Why what this run starts is not followed: an inline skill's run is its caller's; a run reached
   * before as the same agent, sandboxed alike, at the same depth or shallower, with tools at least as
   * wide (`same` when they are equal), could start all it could.
   */
  readonly notFollowed?:
    | { readonly kind: "inline" }
    | { readonly kind: "repeat"; readonly of: readonly string[]; readonly same: boolean };
  /** Task is not offered here (the depth limit), though the list allows some subagent. */
  readonly depthLimit?: boolean;
  readonly children: readonly AuditNode[];
}

export interface EntryPoint {
  /** `main`, `/tour`, `--agent reviewer`. */
  readonly name: string;
  readonly kind: "main" | "command" | "skill" | "agent";
  readonly definition?: Definition;
  readonly root: AuditNode;
}

type Node = { -readonly [K in keyof AuditNode]: AuditNode[K] } & { children: Node[] };

/**
 * Every start a user has (the main agent, each `/name`, each subagent as `--agent`) and every chain
 * of hops a model can take from it, prepared by the functions a run uses (`prepareRun`,
 * `resolveInvocable`, `runStarts`). A run whose state (who it runs as, its grants, its sandbox) was
 * already reached at the same depth or shallower is not followed again, which ends cycles; an
 * inline skill only narrows its run, so what it could start, the run could already.
 */
export function walkEntryPoints(core: HopCore, names: readonly string[]): EntryPoint[] {
  const user = userCaller(core);
  const starts: [Omit<EntryPoint, "root">, RunRequest, string[], string][] = [
    [
      { name: "main", kind: "main", ...(core.main && { definition: core.main }) },
      { kind: "prompt", content: "" },
      ["main"],
      "main",
    ],
  ];
  for (const name of slashNames(core)) {
    const def = findInvocable(core, name, "user");
    if (typeof def === "string") continue;
    starts.push([
      { name: `/${name}`, kind: def.surface, definition: def },
      { kind: "invocable", name, args: "", by: "user" },
      ["main", `${def.surface}:${name}`],
      def.context === "fork" ? `${def.surface}:${name}` : "main",
    ]);
  }
  for (const a of core.agents.values())
    starts.push([
      { name: `--agent ${a.name}`, kind: "agent", definition: a },
      { kind: "agent", name: a.name, content: "" },
      ["main", `agent:${a.name}`],
      `agent:${a.name}`,
    ]);
  return starts.map(([entry, request, chain, runAs]) => {
    const hop = { chain, kind: "entry" as const, runAs, definition: entry.definition };
    const root = node(core, names, hop, prepareRun(core, user, request));
    follow(core, names, root);
    return { ...entry, root };
  });
}

/**
 * Breadth first, so that a state is first met at its shallowest. A run no wider than one already
 * followed (the same agent, sandbox alike, no deeper) is not followed: every hop narrows, so what it
 * could start, that one could; this ends cycles and keeps the walk small.
 */
function follow(core: HopCore, names: readonly string[], root: Node): void {
  const seen = new Map<string, { depth: number; chain: readonly string[]; grants: readonly Grant[] }[]>();
  const queue: Node[] = [root];
  for (let n = queue.shift(); n !== undefined; n = queue.shift()) {
    const run = n.run;
    if (!run || n.notFollowed) continue;
    const key = `${n.runAs}\n${JSON.stringify(run.sandbox ?? null)}`;
    const states = seen.get(key) ?? [];
    const wider = states.find((s) => s.depth <= run.depth && within(n.grants, s.grants));
    if (wider) {
      n.notFollowed = { kind: "repeat", of: wider.chain, same: within(wider.grants, n.grants) };
      continue;
    }
    seen.set(key, [...states, { depth: run.depth, chain: n.chain, grants: n.grants }]);
    n.children = hopsFrom(core, names, n, run);
    if (run.depth >= core.settings.maxDepth && allowedSubagents(core, run.list).length > 0)
      n.depthLimit = true;
    queue.push(...n.children);
  }
}

/** Whether every call `inner` admits, `outer` admits too (certain, or false). */
const within = (inner: readonly Grant[], outer: readonly Grant[]) =>
  inner.every((g) => admitsNothing(g) || outer.some((o) => grantCovers(o, g)));

/** The runs one run can start with its tools: Task for each subagent it may start, Skill for each skill. */
function hopsFrom(core: HopCore, names: readonly string[], from: Node, run: RunSpec): Node[] {
  const caller = childCaller(run, run);
  const { subagents, skills } = runStarts(core, run);
  const out: Node[] = subagents.map((a) =>
    node(
      core,
      names,
      { chain: [...from.chain, `agent:${a.name}`], kind: "task", runAs: `agent:${a.name}`, definition: a },
      prepareRun(core, caller, { kind: "agent", name: a.name, content: "" }),
    ),
  );
  for (const s of skills) {
    const chain = [...from.chain, `skill:${s.name}`];
    const r = resolveInvocable(core, caller, s.name, "", "model");
    if (r.kind !== "inline") {
      const hop = { chain, kind: "fork" as const, runAs: `skill:${s.name}`, definition: s };
      out.push(node(core, names, hop, r));
      continue;
    }
    // Inline: the same run, narrowed as the Skill tool narrows it.
    const narrowed: RunSpec = {
      ...run,
      model: r.model,
      list: r.list,
      hooks: r.hooks,
      ...(r.approved && { approved: r.approved }),
      ...(r.sandbox && { sandbox: r.sandbox }),
    };
    const hop = { chain, kind: "skill" as const, runAs: from.runAs, definition: s };
    const inline = node(core, names, hop, { kind: "ready", spec: narrowed });
    inline.notFollowed = { kind: "inline" };
    out.push(inline);
  }
  return out;
}

type Hop = Pick<AuditNode, "chain" | "kind" | "runAs"> & { readonly definition?: Definition | undefined };

function node(core: HopCore, names: readonly string[], hop: Hop, prepared: Prepared): Node {
  const { definition, ...rest } = hop;
  const base = { ...rest, ...(definition && { definition }), children: [] };
  // The refusal a model would be told, less what it says of a tool call: no call is made here.
  if (prepared.kind !== "ready")
    return { ...base, grants: [], failed: prepared.message.replace(/ The tool was not executed\.$/, "") };
  return { ...base, run: prepared.spec, grants: grantsOf(prepared.spec.list, names, core.catalog.specs) };
}
