import { pathSubject } from "./path-pattern.js";
import { subjectValue } from "./subject-specs.js";
import type { ListIndex, ToolView } from "./tool-view.js";
import type { Constraint, DecideContext, Decision, Denial, Hop, Scope, ToolPermissionSpec } from "./types.js";

const ALLOWED: Decision = { kind: "allowed" };

/** One call's subject: the value its patterns are matched against. */
export interface Subject {
  readonly spec: ToolPermissionSpec | undefined;
  /** The field's value as given, for custom rules. */
  readonly given: unknown;
  /** Absolute path or name; undefined when the call cannot be judged. */
  readonly value: string | undefined;
}

export function subjectOf(
  spec: ToolPermissionSpec | undefined,
  input: Readonly<Record<string, unknown>>,
  cwd: string,
): Subject {
  const given = spec ? subjectValue(spec, input, cwd) : undefined;
  let value: string | undefined;
  if (typeof given === "string" && given !== "") {
    if (spec?.kind === "path") value = pathSubject(given, cwd);
    else if (spec?.kind === "name") value = given;
  }
  return { spec, given, value };
}

type Match = "yes" | "no" | "cannot-judge" | "bad-pattern";

export function matchOne(c: Constraint, s: Subject): Match {
  if (c.kind === "bad") return "bad-pattern";
  if (c.kind === "custom") {
    const r = s.spec?.custom?.matches(c.compiled, s.given);
    return r === undefined ? "cannot-judge" : r ? "yes" : "no";
  }
  if (s.value === undefined || s.spec?.kind !== c.kind || c.kind === "command") return "cannot-judge";
  return c.compiled.test(s.value) ? "yes" : "no";
}

/** `inner`, reached through `hop` from the call that was made. */
export function through(hop: Hop, inner: Denial): Denial {
  return { ...inner, through: [hop, ...(inner.through ?? [])] };
}

/**
 * A call of a tool judged by a path, a name or its own rule, once it is offered: its subject on
 * its lexical and (given `realPath`) its real path, both against the tool's rules and its family's
 * deny rules (a Grep or Glob path by Read's too, a Write path by Edit's).
 */
export function judgePath(
  index: ListIndex,
  view: ToolView,
  tool: string,
  spec: ToolPermissionSpec | undefined,
  input: Readonly<Record<string, unknown>>,
  ctx: DecideContext,
): Decision {
  // A family's allow patterns were bound into this tool's rules when the list was compiled; its
  // deny rules (unioned at every hop) are judged here.
  const family = spec?.family ? index.view(spec.family) : undefined;
  const familyDenies = family !== undefined && (family.denies.length > 0 || family.removedBy !== undefined);
  if (view.unrestricted && view.denies.length === 0 && !familyDenies) return ALLOWED;
  const subject = subjectOf(spec, input, ctx.cwd);
  const familyName = familyDenies ? spec?.family : undefined;
  const lexical = judgeSubject(index, view, tool, subject, familyName);
  if (lexical.kind === "denied" || spec?.kind !== "path" || subject.value === undefined || !ctx.realPath)
    return lexical;
  const real = ctx.realPath(subject.value);
  if (real === subject.value) return lexical;
  const viaLink = judgeSubject(index, view, tool, { ...subject, value: real }, familyName);
  if (viaLink.kind === "allowed") return ALLOWED;
  return through({ via: "symlink", tool, subject: subject.value, real }, viaLink);
}

/** One subject against the tool's rules, then against its family's deny rules (Read's for Grep, Edit's for Write). */
function judgeSubject(
  index: ListIndex,
  view: ToolView,
  tool: string,
  s: Subject,
  family: string | undefined,
): Decision {
  const own = judgeOwn(view, tool, s);
  if (own.kind === "denied" || family === undefined || s.value === undefined) return own;
  const head = index.view(family);
  const byHead: Decision = head.removedBy
    ? { kind: "denied", reason: "denied-by-rule", tool: family, rule: head.removedBy }
    : judgeDenies(head, family, s);
  if (byHead.kind === "allowed") return ALLOWED;
  return through({ via: "family", tool, subject: s.value, family }, byHead);
}

/** The deny rules of one tool against a subject. */
export function judgeDenies(view: ToolView, tool: string, s: Subject): Decision {
  for (const rule of view.denies) {
    const m = matchOne(rule.constraint as Constraint, s);
    if (m === "no") continue;
    if (m === "yes") return { kind: "denied", reason: "denied-by-rule", tool, rule, subject: s.value };
    return denialFor(m, tool, s, { kind: "deny-rule", rule });
  }
  return ALLOWED;
}

function judgeOwn(view: ToolView, tool: string, s: Subject): Decision {
  const deny = judgeDenies(view, tool, s);
  if (deny.kind === "denied") return deny;
  if (view.unrestricted) return ALLOWED;
  const value = s.value;
  if (
    value !== undefined &&
    ((view.exact.size > 0 && view.exact.has(value)) || view.re?.test(value) === true)
  )
    return ALLOWED;
  for (const rule of view.others) if (rule.constraints.every((c) => matchOne(c, s) === "yes")) return ALLOWED;
  const custom = view.others.some((r) => r.constraints.some((c) => c.kind === "custom"));
  let reason: Match = "no";
  if (view.onlyBad) reason = "bad-pattern";
  else if (value === undefined && !custom) reason = "cannot-judge";
  else if (custom) {
    for (const r of view.others)
      for (const c of r.constraints) if (matchOne(c, s) === "cannot-judge") reason = "cannot-judge";
  }
  return denialFor(reason, tool, s, view.scope);
}

function denialFor(m: Match, tool: string, s: Subject, scope: Scope): Denial {
  switch (m) {
    case "cannot-judge": {
      const field = s.spec?.field;
      const why = field ? { kind: "no-value" as const, field, custom: s.spec?.kind === "custom" } : NO_VALUE;
      return { kind: "denied", reason: "cannot-judge", tool, why, scope };
    }
    case "bad-pattern":
      return { kind: "denied", reason: "bad-pattern", tool, scope };
    default:
      return { kind: "denied", reason: "no-pattern-matched", tool, scope, subject: s.value };
  }
}

const NO_VALUE = { kind: "no-value" } as const;
