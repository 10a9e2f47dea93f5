import path from "node:path";
import type { Definition, Diagnostic } from "../definitions/types.js";
import { compileList, narrowingBy } from "./permission-list.js";
import type { PermissionList, ToolSpecs } from "./types.js";

export interface DefinitionListContext {
  readonly specs: ToolSpecs;
  readonly home: string;
}

/**
 * One definition's own allow and deny lists, anchored at its project (and skill folder), marked as
 * the hop that narrows the runs below it.
 */
export function definitionList(def: Definition, ctx: DefinitionListContext): PermissionList {
  const list = compileList(def.allowedTools?.entries, def.disallowedTools?.entries, {
    specs: ctx.specs,
    home: ctx.home,
    projectDir: def.root,
    ...(def.surface === "skill" && { skillDir: def.dir }),
  });
  return narrowingBy(list, hopName(def), relativeFile(def));
}

/** How a denial names a hop: `agent.md`, `the skill 'notes'`, `the command /commit`, `the subagent 'x'`. */
function hopName(def: Definition): string {
  switch (def.surface) {
    case "main":
      return "agent.md";
    case "agent":
      return `the subagent '${def.name}'`;
    case "skill":
      return `the skill '${def.name}'`;
    case "command":
      return `the command /${def.name}`;
  }
}

function relativeFile(def: Definition): string {
  const rel = path.relative(def.root, def.file);
  return rel === "" || rel.startsWith("..") || path.isAbsolute(rel) ? def.file : rel;
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
