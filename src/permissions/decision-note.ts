import path from "node:path";
import { decide } from "./decide.js";
import { hopLabel } from "./denial-text.js";
import { canonicalToolName, covers, matcherText } from "./tool-matcher.js";
import type { DecideContext, Denial, Origin, PermissionList, Rule, ToolCall } from "./types.js";

/**
 * A call's permission decision as data a trace (or any reader) can keep: the verdict, the rule that
 * decided it as written, and where that rule is written (`file:line`, relative to the run's folder
 * when inside it). Kept on every call's `tool_end` (transcripts, traces, `agentmd view`): finding
 * the rule that allowed a call judges the call once per rule, which costs microseconds.
 */
export interface DecisionNote {
  readonly verdict: "allowed" | "denied" | "asked";
  /** A denial's reason (`denied-by-rule`, `no-pattern-matched`, …), or who refused (`approval`, `user`, `hook`). */
  readonly reason?: string;
  /** The rule that decided, as written (`Bash(git:*)`); several joined by `; `. */
  readonly rule?: string;
  /** Where it is written: `agent.md:3`; a rule every hop agreed on names each of them. */
  readonly at?: string;
  /** The hop that narrowed the run so that the call is denied, and its file: `the skill 'notes' (skills/notes/SKILL.md)`. */
  readonly narrowedBy?: string;
  /** For `asked`: why it asked, and what came of it. */
  readonly asked?: { readonly reason: string; readonly answer: "once" | "session" | "deny" | "none" };
}

/**
 * The rules of `list` that allowed `call`: the first that admits it alone (deny rules aside, they
 * already let it pass), or, when only several together do (a compound command line), every rule
 * of the tool. `list.rules === null`: no allow-list restricts the run.
 */
export function allowedNote(list: PermissionList, call: ToolCall, ctx: DecideContext): DecisionNote {
  if (list.rules === null) return { verdict: "allowed", rule: "every tool (no allow-list)" };
  const tool = canonicalToolName(call.tool);
  const alone = list.rules.find((r) => decide({ rules: [r], deny: [] }, call, ctx).kind === "allowed");
  const rules = alone ? [alone] : list.rules.filter((r) => covers(r.tool, tool));
  return { verdict: "allowed", ...rulesNote(rules, ctx.cwd) };
}

/**
 * The rule (or pattern set) that denied a call, where the denial names one: a deny rule, or the
 * allow rules of the tool none of whose patterns matched (from `list`, where they are written).
 */
export function deniedNote(d: Denial, cwd: string, list?: PermissionList): DecisionNote {
  const base = {
    verdict: "denied" as const,
    reason: d.reason,
    ...(d.narrowedBy && { narrowedBy: hopLabel(d.narrowedBy) }),
  };
  if (d.reason === "denied-by-rule") return { ...base, ...originNote(d.rule.origin, cwd) };
  if (d.reason === "cannot-judge" && d.why.kind === "deny-unsure")
    return {
      ...base,
      ...originsNote(
        d.why.rules.map((r) => r.origin),
        cwd,
      ),
    };
  const scope = "scope" in d ? d.scope : undefined;
  if (scope?.kind === "patterns") {
    const rules = list?.rules?.filter((r) => covers(r.tool, scope.tool) && r.constraints.length > 0) ?? [];
    return rules.length > 0
      ? { ...base, ...rulesNote(rules, cwd) }
      : { ...base, rule: `${scope.tool}(${scope.patterns.join(", ")})` };
  }
  if (scope?.kind === "deny-rule") return { ...base, ...originNote(scope.rule.origin, cwd) };
  return base;
}

function rulesNote(rules: readonly Rule[], cwd: string): { rule?: string; at?: string } {
  if (rules.length === 0) return {};
  const rule = rules
    .map((r) => {
      const patterns = r.constraints.map((c) => c.text).join(" ∧ ");
      return `${matcherText(r.tool)}${patterns ? `(${patterns})` : ""}`;
    })
    .join("; ");
  const at = [...new Set(rules.flatMap((r) => r.origins.map((o) => where(o, cwd))))].join(", ");
  return { rule, ...(at && { at }) };
}

const originNote = (o: Origin, cwd: string) => ({ rule: o.raw, at: where(o, cwd) });
const originsNote = (os: readonly Origin[], cwd: string) => ({
  rule: os.map((o) => o.raw).join("; "),
  at: [...new Set(os.map((o) => where(o, cwd)))].join(", "),
});

function where(o: Origin, cwd: string): string {
  const rel = path.relative(cwd, o.file);
  const shown = rel === "" || rel.startsWith("..") || path.isAbsolute(rel) ? o.file : rel;
  return `${shown}:${o.line}`;
}
