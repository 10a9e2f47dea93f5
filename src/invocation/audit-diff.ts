import type { PermissionMode } from "../definitions/settings.js";
import { type Grant, gainedGrants } from "../permissions/capabilities.js";
import type { Audit, EntryAudit, ReachedGrant } from "./audit.js";

export interface EntryDiff {
  readonly name: string;
  /**
   * `added`: a new entry point, compared with what the main agent could do before (a user could
   * always start that); `removed`: gone, everything it could do is lost.
   */
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

/** Compares the audit of `prior` (a revision) with `next` (the working tree). Pure. */
export function diffAudits(prior: Audit, next: Audit): AuditDiff {
  const before = new Map(prior.entryPoints.map((e) => [e.name, e]));
  const baseline = before.get("main");
  const entryPoints: EntryDiff[] = [];
  for (const e of next.entryPoints) {
    const p = before.get(e.name);
    const d = p ? entryDiff(e, p, "changed") : entryDiff(e, baseline, "added");
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
  const unasked = {
    gained: gainedGrants(next.unasked, prior.unasked),
    lost: gainedGrants(prior.unasked, next.unasked),
  };
  const asks = { gained: gainedGrants(next.asks, prior.asks), lost: gainedGrants(prior.asks, next.asks) };
  const widened =
    entryPoints.some((e) => e.widened) ||
    mode?.widened === true ||
    unasked.gained.length > 0 ||
    asks.lost.length > 0;
  return { entryPoints, ...(mode && { mode }), unasked, asks, widened };
}

function entryDiff(next: EntryAudit, prior: EntryAudit | undefined, status: "added" | "changed"): EntryDiff {
  const was = prior?.grants ?? [];
  const gained = reached(gainedGrants(grants(next.grants), grants(was)), next.grants);
  const lost = status === "added" ? [] : reached(gainedGrants(grants(was), grants(next.grants)), was);
  const from = prior?.sandboxed ?? "none";
  const to = next.sandboxed;
  const sandbox = from === to ? undefined : { from, to, widened: SANDBOX_RANK[to] > SANDBOX_RANK[from] };
  return {
    name: next.name,
    status,
    gained,
    lost,
    ...(sandbox && { sandbox }),
    widened: gained.length > 0 || sandbox?.widened === true,
  };
}

const grants = (r: readonly ReachedGrant[]) => r.map((x) => x.grant);
const reached = (gs: readonly Grant[], from: readonly ReachedGrant[]) =>
  gs.map((g) => from.find((r) => r.grant === g) as ReachedGrant);
