import { compileCommandPattern, intersectCommandPatterns, normaliseCommand } from "./command-pattern.js";
import {
  compileNamePattern,
  compilePathPattern,
  intersectNamePatterns,
  intersectPathPatterns,
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
  if (a.kind === "command" && b.kind === "command")
    return kept(a, b, intersectCommandPatterns(a.compiled, b.compiled));
  if (a.kind === "path" && b.kind === "path")
    return kept(a, b, intersectPathPatterns(a.compiled, b.compiled));
  if (a.kind === "name" && b.kind === "name")
    return kept(a, b, intersectNamePatterns(a.compiled, b.compiled));
  return a.kind === b.kind && a.text === b.text && a.kind !== "bad" ? a : undefined;
}

/** The constraint whose compiled form the intersection kept, or what the intersection said. */
function kept(a: Constraint, b: Constraint, r: unknown): Constraint | null | undefined {
  if (r === null || r === undefined) return r;
  return r === a.compiled ? a : b;
}
