import path from "node:path";
import { SUBJECT_FIELD } from "./builtin-specs.js";
import { type CallSubject, callSubject, denyCatches, type Match, matchConstraint } from "./constraint.js";
import { canonicalToolName, covers } from "./tool-matcher.js";
import type {
  DecideContext,
  Decision,
  DenyReason,
  DenyRule,
  Origin,
  PermissionList,
  Rule,
  ToolCall,
} from "./types.js";

const ALLOWED: Decision = { kind: "allowed" };
const NOT_RUN = "The tool was not executed.";

interface ToolView {
  /** Rules covering the tool; null when the list has no allow rules at all. */
  readonly rules: readonly Rule[] | null;
  readonly unrestricted: boolean;
  readonly removedBy: DenyRule | undefined;
  readonly denies: readonly DenyRule[];
}

// The rules that apply to one tool, computed once per list and tool name. Lists are immutable, so
// this memo changes no result; it keeps a decision to a map lookup and the matching itself.
const views = new WeakMap<PermissionList, Map<string, ToolView>>();

function viewOf(list: PermissionList, tool: string): ToolView {
  let byTool = views.get(list);
  if (!byTool) {
    byTool = new Map();
    views.set(list, byTool);
  }
  let v = byTool.get(tool);
  if (!v) {
    const rules = list.rules === null ? null : list.rules.filter((r) => covers(r.tool, tool));
    v = {
      rules,
      unrestricted: rules === null || rules.some((r) => r.constraints.length === 0),
      removedBy: list.deny.find((d) => !d.constraint && covers(d.tool, tool)),
      denies: list.deny.filter((d) => d.constraint && covers(d.tool, tool)),
    };
    byTool.set(tool, v);
  }
  return v;
}

const denied = (reason: DenyReason, message: string): Decision => ({ kind: "denied", reason, message });
const where = (o: Origin) => `${path.basename(o.file)}:${o.line}`;

function isRecord(x: unknown): x is Readonly<Record<string, unknown>> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

/**
 * Judges one call against an effective list. Pure: no I/O, no logging, same answer every time.
 * Deny rules first (deny beats allow), then the allow rules of the tool: one of them must admit
 * the call. The sentence of a denial is written for the model and the user alike.
 */
export function decide(list: PermissionList, call: ToolCall, ctx: DecideContext): Decision {
  const tool = canonicalToolName(call.tool);
  const view = viewOf(list, tool);
  if (view.removedBy) {
    return denied(
      "denied-by-rule",
      `${tool} is not allowed: '${view.removedBy.origin.raw}' in ${where(view.removedBy.origin)} removes it. ${NOT_RUN}`,
    );
  }
  if (view.rules !== null && view.rules.length === 0) {
    return denied("not-offered", `${tool} is not allowed in this run. ${NOT_RUN}`);
  }
  if (view.unrestricted && view.denies.length === 0) return ALLOWED;
  const subject = callSubject(ctx.specs.get(tool), isRecord(call.input) ? call.input : {}, ctx.cwd);
  for (const d of view.denies) {
    const m = denyCatches(d.constraint as NonNullable<DenyRule["constraint"]>, subject);
    if (m === "no") continue;
    const rule = `'${d.origin.raw}' in ${where(d.origin)}`;
    if (m === "yes")
      return denied("denied-by-rule", `${describeCall(tool, subject)} is denied by ${rule}. ${NOT_RUN}`);
    return denialFor(m, tool, subject, `the deny rule ${rule}`);
  }
  if (view.unrestricted) return ALLOWED;
  let worst: Match = "yes";
  for (const rule of view.rules ?? []) {
    let outcome: Match = "yes";
    for (const c of rule.constraints) {
      const m = matchConstraint(c, subject);
      if (m !== "yes") {
        outcome = m;
        break;
      }
    }
    if (outcome === "yes") return ALLOWED;
    worst = rank(outcome) > rank(worst) ? outcome : worst;
  }
  const patterns = (view.rules ?? []).map((r) => r.constraints.map((c) => c.text).join(" ∧ ")).join(", ");
  return denialFor(worst, tool, subject, `this run allows ${tool} only for: ${patterns}`);
}

const RANK: Record<Match, number> = { yes: 0, "bad-pattern": 1, no: 2, metacharacter: 3, "cannot-judge": 4 };
const rank = (m: Match) => RANK[m];

function denialFor(m: Match, tool: string, s: CallSubject, scope: string): Decision {
  const field = SUBJECT_FIELD[tool];
  switch (m) {
    case "cannot-judge":
      return denied(
        "cannot-judge",
        `${tool} call cannot be judged: ${field ? `its '${field}' is missing, empty or not text` : "it has no value a pattern can be matched against"}, and ${scope}. ${NOT_RUN}`,
      );
    case "metacharacter":
      return denied(
        "metacharacter",
        `${describeCall(tool, s)} holds a shell metacharacter (; | & \` $ > < ( ) or a newline), so it could run more than a pattern names; ${scope}. ${NOT_RUN}`,
      );
    case "bad-pattern":
      return denied(
        "bad-pattern",
        `${tool} is allowed only by patterns that cannot be interpreted (${scope}). ${NOT_RUN}`,
      );
    default:
      return denied("no-pattern-matched", `${describeCall(tool, s)} is not allowed: ${scope}. ${NOT_RUN}`);
  }
}

function describeCall(tool: string, s: CallSubject): string {
  if (s.value === undefined) return `${tool} call`;
  const v = s.value.length > 120 ? `${s.value.slice(0, 117)}...` : s.value;
  return `${tool}(${JSON.stringify(v).slice(1, -1)})`;
}
