import {
  type CommandPattern,
  compileCommandPattern,
  intersectCommandPatterns,
  normaliseCommand,
} from "./command-pattern.js";
import {
  compileNamePattern,
  compilePathPattern,
  intersectNamePatterns,
  intersectPathPatterns,
  type NamePattern,
  type PathPattern,
} from "./path-pattern.js";
import type { CompileContext, Constraint, ToolMatcher } from "./types.js";

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
