import { compileConstraint, intersectConstraints } from "./constraint.js";
import { canonicalToolName, covers, intersectMatchers, toolMatcher } from "./tool-matcher.js";
import type { CompileContext, Constraint, DenyRule, Origin, PermissionList, Rule } from "./types.js";

/** What compiles into a list: the loader's entries (`ToolEntry`) or anything shaped like them. */
export interface EntryInput {
  readonly name: string;
  readonly pattern?: string;
  readonly raw: string;
  readonly at: { readonly file: string; readonly line: number; readonly column: number };
}

/** No restriction: what a chain starts from. */
export const UNRESTRICTED: PermissionList = { rules: null, deny: [] };

const originOf = (e: EntryInput): Origin => ({
  file: e.at.file,
  line: e.at.line,
  column: e.at.column,
  raw: e.raw,
});

/**
 * Compiles one definition's allow and deny lists. An omitted or empty allow list adds no
 * restriction at this level. A name-only entry next to pattern entries of the same tool does not
 * unrestrict it: the patterns rule (`Read` with `Read(/tmp/**)` means /tmp only).
 */
export function compileList(
  allow: readonly EntryInput[] | undefined,
  deny: readonly EntryInput[] | undefined,
  ctx: CompileContext,
): PermissionList {
  const denyRules: DenyRule[] = (deny ?? []).map((e) => {
    const tool = toolMatcher(e.name);
    const origin = originOf(e);
    return e.pattern === undefined
      ? { tool, origin }
      : { tool, origin, constraint: compileConstraint(tool, e.pattern, ctx) };
  });
  if (!allow || allow.length === 0) return { rules: null, deny: denyRules };
  const patterned: Rule[] = [];
  const plain: Rule[] = [];
  for (const e of allow) {
    const tool = toolMatcher(e.name);
    const origins = [originOf(e)];
    if (e.pattern === undefined) plain.push({ tool, constraints: [], origins });
    else patterned.push({ tool, constraints: [compileConstraint(tool, e.pattern, ctx)], origins });
  }
  const governed = [...new Set(patterned.map((r) => matcherName(r.tool)))];
  const rules: Rule[] = [...patterned];
  for (const r of plain) {
    const except = governed.filter((g) => intersectMatchers(r.tool, toolMatcher(g)) !== null);
    if (except.includes("*")) continue;
    const narrowed = intersectMatchers(r.tool, { kind: "any", value: "", except });
    if (narrowed) rules.push({ ...r, tool: narrowed });
  }
  return { rules: dedupe(rules), deny: denyRules };
}

function matcherName(m: Rule["tool"]): string {
  return m.kind === "any" ? "*" : m.kind === "prefix" ? `${m.value}*` : m.value;
}

/**
 * The calls both lists allow: caller ∩ callee. Never wider than either side; exact, since each
 * rule pair is kept as a conjunction of its constraints, simplified only where that is certain.
 * Deny lists are unioned. A list with no surviving rule allows nothing (it never turns into
 * "unrestricted").
 */
export function intersect(a: PermissionList, b: PermissionList): PermissionList {
  const deny = [...a.deny, ...b.deny.filter((d) => !a.deny.includes(d))];
  if (a.rules === null) return { rules: b.rules, deny };
  if (b.rules === null) return { rules: a.rules, deny };
  const rules: Rule[] = [];
  for (const r1 of a.rules) {
    for (const r2 of b.rules) {
      const tool = intersectMatchers(r1.tool, r2.tool);
      if (tool === null) continue;
      const constraints = conjoin(r1.constraints, r2.constraints);
      if (constraints === null) continue;
      rules.push({ tool, constraints, origins: [...r1.origins, ...r2.origins] });
    }
  }
  return { rules: dedupe(rules), deny };
}

/** Intersects any number of lists, left to right: main → subagent → skill → … */
export function intersectAll(lists: readonly PermissionList[]): PermissionList {
  return lists.reduce(intersect, UNRESTRICTED);
}

/** All constraints of both, merged where certain; null when no call can satisfy them all. */
function conjoin(a: readonly Constraint[], b: readonly Constraint[]): Constraint[] | null {
  const out = [...a];
  for (const c of b) {
    let merged = false;
    for (let i = 0; i < out.length; i++) {
      const r = intersectConstraints(out[i] as Constraint, c);
      if (r === null) return null;
      if (r !== undefined) {
        out[i] = r;
        merged = true;
        break;
      }
    }
    if (!merged) out.push(c);
  }
  return out;
}

function dedupe(rules: Rule[]): Rule[] {
  const seen = new Map<string, Rule>();
  for (const r of rules) {
    const key = `${matcherName(r.tool)}|${r.tool.except.join(",")}|${r.constraints.map((c) => `${c.kind}:${c.text}`).join("&")}`;
    const prior = seen.get(key);
    seen.set(key, prior ? { ...prior, origins: [...prior.origins, ...r.origins] } : r);
  }
  return [...seen.values()];
}

/**
 * The tools to show the model: those the list allows some call of, minus those a bare-name deny
 * removes. A pattern entry keeps its tool offered; the executor judges each call.
 */
export function offered(list: PermissionList, toolNames: readonly string[]): string[] {
  return toolNames.filter((name) => {
    const n = canonicalToolName(name);
    if (list.deny.some((d) => !d.constraint && covers(d.tool, n))) return false;
    return list.rules === null || list.rules.some((r) => covers(r.tool, n));
  });
}

/** True when no tool at all survives: the run must be refused. */
export function allowsNothing(list: PermissionList): boolean {
  return list.rules !== null && list.rules.length === 0;
}
