import type { Definition, Diagnostic } from "../definitions/types.js";
import { compileList } from "./permission-list.js";
import type { PermissionList, ToolSpecs } from "./types.js";

export interface DefinitionListContext {
  readonly specs: ToolSpecs;
  readonly home: string;
}

/** One definition's own allow and deny lists, anchored at its project (and skill folder). */
export function definitionList(def: Definition, ctx: DefinitionListContext): PermissionList {
  return compileList(def.allowedTools?.entries, def.disallowedTools?.entries, {
    specs: ctx.specs,
    home: ctx.home,
    projectDir: def.root,
    ...(def.surface === "skill" && { skillDir: def.dir }),
  });
}

/**
 * Patterns that cannot be interpreted, as load-time warnings. Such a pattern matches nothing in an
 * allow list, and catches every call of its tool in a deny list: it never widens anything.
 */
export function patternDiagnostics(def: Definition, ctx: DefinitionListContext): Diagnostic[] {
  const list = definitionList(def, ctx);
  const out: Diagnostic[] = [];
  const constraints = [
    ...(list.rules ?? []).flatMap((r) => r.constraints.map((c) => ({ c, o: r.origins[0], deny: false }))),
    ...list.deny.flatMap((d) => (d.constraint ? [{ c: d.constraint, o: d.origin, deny: true }] : [])),
  ];
  for (const { c, o, deny } of constraints) {
    if (c.kind !== "bad" || !o) continue;
    out.push({
      file: o.file,
      line: o.line,
      column: o.column,
      severity: "warning",
      code: "bad-pattern",
      surface: def.surface,
      message: `pattern '${o.raw}' cannot be interpreted: ${c.problem}; ${deny ? "as a deny rule it denies every call of its tool" : "it allows nothing"}`,
    });
  }
  return out;
}
