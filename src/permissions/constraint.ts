import {
  type CommandPattern,
  compileCommandPattern,
  denyForms,
  hasShellMetacharacter,
  intersectCommandPatterns,
  matchCommand,
  normaliseCommand,
} from "./command-pattern.js";
import {
  compileNamePattern,
  compilePathPattern,
  intersectNamePatterns,
  intersectPathPatterns,
  type NamePattern,
  type PathPattern,
  pathSubject,
} from "./path-pattern.js";
import type { CompileContext, Constraint, ToolMatcher, ToolPermissionSpec } from "./types.js";

const bad = (text: string, problem: string): Constraint => ({ kind: "bad", text, problem, compiled: null });

/** Compiles the pattern of one entry for the tool its matcher names. Never throws. */
export function compileConstraint(tool: ToolMatcher, pattern: string, ctx: CompileContext): Constraint {
  if (tool.kind !== "exact") return bad(pattern, "a pattern applies to one tool, not to a wildcard name");
  const spec = ctx.specs.get(tool.value);
  if (!spec)
    return bad(pattern, `'${tool.value}' has no permission subject, so a pattern on it cannot be judged`);
  switch (spec.kind) {
    case "command": {
      const c = compileCommandPattern(pattern);
      return c.ok
        ? { kind: "command", text: normaliseCommand(pattern), compiled: c.pattern }
        : bad(pattern, c.problem);
    }
    case "path": {
      const c = compilePathPattern(pattern, ctx);
      return c.ok ? { kind: "path", text: pattern.trim(), compiled: c.pattern } : bad(pattern, c.problem);
    }
    case "name": {
      const c = compileNamePattern(pattern);
      return c.ok ? { kind: "name", text: pattern.trim(), compiled: c.pattern } : bad(pattern, c.problem);
    }
    case "custom": {
      const problem =
        spec.custom?.validate(pattern) ?? (spec.custom ? undefined : "this tool declares no rule");
      return problem ? bad(pattern, problem) : { kind: "custom", text: pattern.trim(), compiled: pattern };
    }
  }
}

/** A call's subject, derived once per decision; `undefined` value means it cannot be judged. */
export interface CallSubject {
  readonly spec: ToolPermissionSpec | undefined;
  readonly input: Readonly<Record<string, unknown>>;
  readonly cwd: string;
  /** Normalised command or absolute path or name; undefined when the call cannot be judged. */
  readonly value: string | undefined;
}

export function callSubject(
  spec: ToolPermissionSpec | undefined,
  input: Readonly<Record<string, unknown>>,
  cwd: string,
): CallSubject {
  let value: string | undefined;
  const raw = spec?.subject?.(input, cwd);
  if (spec?.kind === "path") value = pathSubject(raw, cwd);
  else if (spec?.kind === "command") value = typeof raw === "string" && raw.trim() !== "" ? raw : undefined;
  else if (spec?.kind === "name") value = typeof raw === "string" && raw !== "" ? raw : undefined;
  return { spec, input, cwd, value };
}

export type Match = "yes" | "no" | "cannot-judge" | "metacharacter" | "bad-pattern";

/** Whether an allow constraint admits the call. */
export function matchConstraint(c: Constraint, s: CallSubject): Match {
  if (c.kind === "bad") return "bad-pattern";
  if (c.kind === "custom") {
    const r = s.spec?.custom?.matches(c.compiled as string, s.input, s.cwd);
    return r === undefined ? "cannot-judge" : r ? "yes" : "no";
  }
  if (s.value === undefined) return "cannot-judge";
  if (c.kind === "command") {
    if (hasShellMetacharacter(s.value)) return "metacharacter";
    return matchCommand(c.compiled as CommandPattern, normaliseCommand(s.value)) ? "yes" : "no";
  }
  if (c.kind === "path") return (c.compiled as PathPattern).test(s.value) ? "yes" : "no";
  return (c.compiled as NamePattern).test(s.value) ? "yes" : "no";
}

/**
 * Whether a deny constraint catches the call. Anything it cannot rule out counts as caught: a
 * compound command, a call that cannot be judged, a pattern that cannot be interpreted.
 */
export function denyCatches(c: Constraint, s: CallSubject): Match {
  if (c.kind === "command" && s.value !== undefined) {
    if (hasShellMetacharacter(s.value)) return "metacharacter";
    const p = c.compiled as CommandPattern;
    return denyForms(normaliseCommand(s.value)).some((f) => matchCommand(p, f)) ? "yes" : "no";
  }
  return matchConstraint(c, s);
}

/**
 * Two constraints of one tool as one where that is certain; `null` when no call satisfies both;
 * `undefined` when both must be kept.
 */
export function intersectConstraints(a: Constraint, b: Constraint): Constraint | null | undefined {
  if (a.kind !== b.kind || a.kind === "bad" || a.kind === "custom") {
    return a.kind === b.kind && a.text === b.text && a.kind !== "bad" ? a : undefined;
  }
  let r: unknown;
  if (a.kind === "command")
    r = intersectCommandPatterns(a.compiled as CommandPattern, b.compiled as CommandPattern);
  else if (a.kind === "path") r = intersectPathPatterns(a.compiled as PathPattern, b.compiled as PathPattern);
  else r = intersectNamePatterns(a.compiled as NamePattern, b.compiled as NamePattern);
  if (r === null || r === undefined) return r;
  return r === a.compiled ? a : b;
}
