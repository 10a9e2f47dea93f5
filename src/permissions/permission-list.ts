import { compileConstraint, intersectConstraints } from "./constraint.js";
import { canonicalToolName, covers, intersectMatchers, toolMatcher } from "./tool-matcher.js";
import { type IndexedList, indexed } from "./tool-view.js";
import type {
  CompileContext,
  Constraint,
  DenyRule,
  Narrowing,
  Origin,
  PermissionList,
  Rule,
  ToolSpecs,
} from "./types.js";

/** What compiles into a list: the loader's entries (`ToolEntry`) or anything shaped like them. */
export interface EntryInput {
  readonly name: string;
  readonly pattern?: string;
  readonly raw: string;
  readonly at: { readonly file: string; readonly line: number; readonly column: number };
}

/** No restriction: what a chain starts from. */
export const UNRESTRICTED: PermissionList = indexed(null, []);

const originOf = (e: EntryInput): Origin => ({
  file: e.at.file,
  line: e.at.line,
  column: e.at.column,
  raw: e.raw,
});

/**
 * Compiles one definition's allow and deny lists. An omitted allow list adds no restriction at this
 * level; an empty one (written, with no entry) allows nothing. A name-only entry next to pattern entries of the same tool does not
 * unrestrict it: the patterns rule (`Read` with `Read(/tmp/**)` means /tmp only).
 */
export function compileList(
  allow: readonly EntryInput[] | undefined,
  deny: readonly EntryInput[] | undefined,
  ctx: CompileContext,
): IndexedList {
  const denyRules: DenyRule[] = (deny ?? []).flatMap((e) => {
    const tool = toolMatcher(e.name);
    const origin = originOf(e);
    if (e.pattern !== undefined)
      return [{ tool, origin, constraint: compileConstraint(tool, e.pattern, ctx) }];
    // A tool removed takes its family with it (no Read: no Grep, Glob or LS either), as decide judges.
    const members = familiesOf(ctx).get(e.name) ?? [];
    return [{ tool, origin }, ...members.map((m) => ({ tool: toolMatcher(m), origin }))];
  });
  if (!allow) return indexed(null, denyRules);
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
  return indexed(dedupe(bindFamilies(rules, ctx)), denyRules);
}

/**
 * A tool bound by another's path rules (Grep and Glob by Read's, Write by Edit's) gets those
 * patterns as constraints of its own, in the list that wrote them: `Read(src/**), Grep` allows Grep
 * in src/** only. Carried by the member's rules, the binding survives every intersection (the
 * head's rules may not: a caller without Read has none, and must not unbind Grep).
 */
function bindFamilies(rules: Rule[], ctx: CompileContext): Rule[] {
  let out = rules;
  for (const [head, members] of familiesOf(ctx)) {
    const bound = out.filter(
      (r) => r.tool.kind === "exact" && r.tool.value === head && r.constraints.length > 0,
    );
    if (bound.length === 0) continue;
    const next: Rule[] = [];
    for (const r of out) {
      const covered = members.filter((m) => covers(r.tool, m));
      if (covered.length === 0) {
        next.push(r);
        continue;
      }
      if (r.tool.kind !== "exact") {
        const rest = intersectMatchers(r.tool, { kind: "any", value: "", except: covered });
        if (rest) next.push({ ...r, tool: rest });
      }
      for (const m of covered) {
        for (const h of bound) {
          const constraints = conjoin(r.constraints, h.constraints);
          if (constraints !== null)
            next.push({ tool: toolMatcher(m), constraints, origins: [...r.origins, ...h.origins] });
        }
      }
    }
    out = next;
  }
  return out;
}

/** Heads and the tools their path rules bind, from the tools' own declarations. */
function familiesOf(ctx: CompileContext): Map<string, string[]> {
  const families = new Map<string, string[]>();
  for (const [name, spec] of ctx.specs) {
    if (spec.family) families.set(spec.family, [...(families.get(spec.family) ?? []), name]);
  }
  return families;
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
export function intersect(a: PermissionList, b: PermissionList): IndexedList {
  return carrying(intersectRules(a, b), [
    ...(a.narrowedBy ?? []),
    ...(b.narrowedBy ?? []).filter((n) => !a.narrowedBy?.includes(n)),
  ]);
}

/** A list that tells which hops narrowed it (`narrowedBy`), caller first. */
function carrying(list: IndexedList, hops: readonly Narrowing[]): IndexedList {
  return hops.length > 0 ? { ...list, narrowedBy: hops } : list;
}

/**
 * A hop's own list, marked as its: a call that a list intersected from it does not allow is told
 * that this hop narrowed the run. A list that restricts nothing narrows nothing.
 */
export function narrowingBy(list: IndexedList, hop: string, file: string): IndexedList {
  if (list.rules === null) return list;
  return carrying(list, [{ hop, file, own: { rules: list.rules, deny: [] } }]);
}

function intersectRules(a: PermissionList, b: PermissionList): IndexedList {
  const deny = [...a.deny, ...b.deny.filter((d) => !a.deny.includes(d))];
  if (a.rules === null) return indexed(b.rules, deny);
  if (b.rules === null) return indexed(a.rules, deny);
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
  return indexed(dedupe(rules), deny);
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

/** Whether a command line could ever be parsed for this list: some rule or deny gives a command tool a pattern. */
export function judgesCommands(list: PermissionList, specs: ToolSpecs): boolean {
  const command = (name: string) => specs.get(name)?.kind === "command";
  const named = (m: { kind: string; value: string }) => m.kind === "exact" && command(m.value);
  // A redirection is a write: deny rules on Write or Edit are judged on command lines too.
  const writer = (m: { kind: string; value: string }) =>
    m.kind !== "exact" || ["Write", "Edit"].includes(m.value);
  return (
    (list.rules ?? []).some((r) => r.constraints.length > 0 && named(r.tool)) ||
    list.deny.some((d) => (d.constraint !== undefined && named(d.tool)) || writer(d.tool))
  );
}
