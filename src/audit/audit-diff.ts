import type { PermissionMode } from "../definitions/settings.js";
import { type Grant, gainedGrants } from "../permissions/capabilities.js";
import type { Audit, EntryAudit, ReachedGrant } from "./audit.js";

export interface EntryDiff {
  readonly name: string;
  /** `added`: a new entry point (its runs compared as any run is); `removed`: gone, with all it could do. */
  readonly status: "added" | "removed" | "changed";
  readonly gained: readonly ReachedGrant[];
  readonly lost: readonly ReachedGrant[];
  /** When whether its commands run sandboxed changed; `widened` when fewer of them do. */
  readonly sandbox?: {
    readonly from: EntryAudit["sandboxed"];
    readonly to: EntryAudit["sandboxed"];
    readonly widened: boolean;
  };
  /** It can do something it could not, or runs commands outside the sandbox where it did not. */
  readonly widened: boolean;
}

/** What changed between two audits of one project: per entry point, and in the session's approval tier. */
export interface AuditDiff {
  readonly entryPoints: readonly EntryDiff[];
  readonly mode?: { readonly from: PermissionMode; readonly to: PermissionMode; readonly widened: boolean };
  /** What runs without asking (agent.md's list, or the settings' pre-approvals). */
  readonly unasked: { readonly gained: readonly Grant[]; readonly lost: readonly Grant[] };
  /** Rules that ask each time: `lost` ones no longer ask, which widens. */
  readonly asks: { readonly gained: readonly Grant[]; readonly lost: readonly Grant[] };
  /** Anything gained anywhere: what CI should ask a second review for. */
  readonly widened: boolean;
}

const MODE_RANK: Readonly<Record<PermissionMode, number>> = {
  plan: 0,
  default: 1,
  acceptEdits: 2,
  bypassPermissions: 3,
};
const SANDBOX_RANK = { all: 0, some: 1, none: 2 } as const;

/**
 * Compares the audit of `prior` (a revision) with `next` (the working tree), run by run: what each
 * run an entry point reaches (the main agent, a subagent, a forked skill) may do, against what the
 * same run could do from the same entry point before; a run the entry point did not reach before is
 * compared with what that run could do from any entry point, and a run that did not exist at all
 * gains everything it may do. A new entry point's runs are judged the same way. Pure.
 */
export function diffAudits(prior: Audit, next: Audit): AuditDiff {
  const before = new Map(prior.entryPoints.map((e) => [e.name, e]));
  const anywhere = runsAnywhere(prior);
  const entryPoints: EntryDiff[] = [];
  for (const e of next.entryPoints) {
    const p = before.get(e.name);
    const d = entryDiff(e, p, anywhere);
    if (d.status === "added" || d.gained.length > 0 || d.lost.length > 0 || d.sandbox) entryPoints.push(d);
  }
  const now = new Set(next.entryPoints.map((e) => e.name));
  for (const p of prior.entryPoints)
    if (!now.has(p.name))
      entryPoints.push({ name: p.name, status: "removed", gained: [], lost: p.grants, widened: false });
  const mode =
    prior.mode === next.mode
      ? undefined
      : { from: prior.mode, to: next.mode, widened: MODE_RANK[next.mode] > MODE_RANK[prior.mode] };
  // Where agent.md's list approves on both sides, what runs without asking is the main agent's list,
  // whose changes its entry point reports already.
  const same = prior.listApproves && next.listApproves;
  const unasked = same
    ? { gained: [], lost: [] }
    : { gained: gainedGrants(next.unasked, prior.unasked), lost: gainedGrants(prior.unasked, next.unasked) };
  const asks = { gained: gainedGrants(next.asks, prior.asks), lost: gainedGrants(prior.asks, next.asks) };
  const widened =
    entryPoints.some((e) => e.widened) ||
    mode?.widened === true ||
    unasked.gained.length > 0 ||
    asks.lost.length > 0;
  return { entryPoints, ...(mode && { mode }), unasked, asks, widened };
}

/** Each run's grants over every entry point of an audit. */
function runsAnywhere(a: Audit): Map<string, Grant[]> {
  const runs = new Map<string, Grant[]>();
  for (const e of a.entryPoints)
    for (const r of e.runs) runs.set(r.as, [...(runs.get(r.as) ?? []), ...grants(r.grants)]);
  return runs;
}

function entryDiff(
  next: EntryAudit,
  prior: EntryAudit | undefined,
  anywhere: Map<string, Grant[]>,
): EntryDiff {
  const gained: ReachedGrant[] = [];
  const lost: ReachedGrant[] = [];
  for (const run of next.runs) {
    const was = prior?.runs.find((r) => r.as === run.as);
    const baseline = was ? grants(was.grants) : (anywhere.get(run.as) ?? []);
    gained.push(...reached(gainedGrants(grants(run.grants), baseline), run.grants));
  }
  for (const was of prior?.runs ?? []) {
    const run = next.runs.find((r) => r.as === was.as);
    lost.push(...reached(gainedGrants(grants(was.grants), grants(run?.grants ?? [])), was.grants));
  }
  const from = prior?.sandboxed ?? next.sandboxed;
  const to = next.sandboxed;
  const sandbox = from === to ? undefined : { from, to, widened: SANDBOX_RANK[to] > SANDBOX_RANK[from] };
  return {
    name: next.name,
    status: prior ? "changed" : "added",
    gained,
    lost,
    ...(sandbox && { sandbox }),
    widened: gained.length > 0 || sandbox?.widened === true,
  };
}

const grants = (r: readonly ReachedGrant[]) => r.map((x) => x.grant);
const reached = (gs: readonly Grant[], from: readonly ReachedGrant[]) =>
  gs.map((g) => from.find((r) => r.grant === g) as ReachedGrant);
