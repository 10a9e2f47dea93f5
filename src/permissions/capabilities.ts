import { intersectConstraints } from "./constraint.js";
import { escapeGlob } from "./path-pattern.js";
import { offered } from "./permission-list.js";
import { canonicalToolName, covers, matcherText } from "./tool-matcher.js";
import type { Constraint, DenyRule, Origin, PermissionList, Rule, ToolSpecs } from "./types.js";

/**
 * What a list lets one tool do, one alternative at a time: the calls its allow rule admits, minus
 * those its deny rules catch. A list is the union of its grants; `agentmd audit` compares grants to
 * say what a change gained and lost.
 */
export interface Grant {
  /** A tool name, or `mcp__server__*` / `*` for the tools of a server / any tool not named. */
  readonly tool: string;
  /** The allow rule; absent when no list restricts the tool at all. */
  readonly rule?: Rule;
  /** The deny rules that judge this tool's calls: its own, and its family head's (Read's for Grep). */
  readonly denies: readonly DenyRule[];
}

/**
 * The grants of a list over the given tool names. A tool with a name-only rule has one grant (every
 * call); otherwise one grant a rule. Pure.
 */
export function grantsOf(list: PermissionList, names: readonly string[], specs: ToolSpecs): Grant[] {
  const out: Grant[] = [];
  for (const tool of new Set(names.map(canonicalToolName))) {
    if (offered(list, [tool]).length === 0) continue;
    const denies = deniesOf(list, tool, specs);
    if (list.rules === null) {
      out.push({ tool, denies });
      continue;
    }
    const rules = list.rules.filter((r) => covers(r.tool, tool));
    const open = rules.filter((r) => r.constraints.length === 0);
    const chosen =
      open.length > 0 ? [{ ...(open[0] as Rule), origins: open.flatMap((r) => r.origins) }] : rules;
    for (const rule of chosen) out.push({ tool, rule, denies });
  }
  return out;
}

/**
 * The deny rules `decide` judges a tool's calls by: pattern denies of the tool and its family head's;
 * for a server's other tools (`mcp__github__*`), the denies of single tools of that server, which
 * that grant does not admit either.
 */
function deniesOf(list: PermissionList, tool: string, specs: ToolSpecs): DenyRule[] {
  const family = specs.get(tool)?.family;
  const server = tool.endsWith("__*") ? tool.slice(0, -1) : undefined;
  return list.deny.filter(
    (d) =>
      (d.constraint !== undefined && covers(d.tool, tool)) ||
      (family !== undefined && covers(d.tool, family)) ||
      (server !== undefined && d.tool.kind === "exact" && d.tool.value.startsWith(server)),
  );
}

/** A deny without a pattern of one tool, inside a grant of a server's other tools: it takes only that tool. */
const oneToolOf = (g: Grant, d: DenyRule) =>
  d.constraint === undefined && d.tool.kind === "exact" && g.tool.endsWith("__*");

/** A constraint as comparable text: its kind and its anchored pattern. */
export function constraintKey(c: Constraint): string {
  return `${c.kind}:${c.kind === "path" ? c.compiled.text : c.text}`;
}

const denyKey = (d: DenyRule) => `${matcherText(d.tool)}(${d.constraint ? constraintKey(d.constraint) : ""})`;

/** Equal for grants that admit the same calls by the same rules, whatever their origins. */
export function grantKey(g: Grant): string {
  const allow = (g.rule?.constraints ?? []).map(constraintKey).sort().join(" & ");
  const deny = g.denies.map(denyKey).sort().join(", ");
  return `${g.tool}(${allow}) except (${deny})`;
}

/**
 * Whether every call `inner` admits, `outer` admits too. True only when that is certain; a pattern
 * change it cannot judge counts as not covered, so a widening is never missed (a guard, not a proof).
 */
export function grantCovers(outer: Grant, inner: Grant): boolean {
  return (
    outer.tool === inner.tool &&
    ruleCovers(outer.rule, inner.rule) &&
    outer.denies.every((d) => kept(d, inner))
  );
}

function ruleCovers(outer: Rule | undefined, inner: Rule | undefined): boolean {
  const o = outer?.constraints ?? [];
  const i = inner?.constraints ?? [];
  // An uninterpretable pattern in an allow rule admits nothing.
  if (o.length === 0 || i.some((c) => c.kind === "bad")) return true;
  return o.every((oc) => oc.kind !== "bad" && i.some((ic) => within(ic, oc)));
}

/** Every call `a` matches, `b` matches too (both interpretable). */
function within(a: Constraint, b: Constraint): boolean {
  if (a.kind === "bad" || b.kind === "bad" || a.kind !== b.kind) return false;
  return constraintKey(a) === constraintKey(b) || intersectConstraints(a, b) === a;
}

/**
 * Whether a deny of the outer grant still holds for the inner one: the inner has a deny at least as
 * wide, or no call of the inner grant could meet it (for paths and names; a command deny also
 * refuses what it cannot rule out, so dropping one is always a gain).
 */
function kept(d: DenyRule, inner: Grant): boolean {
  if (inner.denies.some((n) => denies(n, d))) return true;
  const c = d.constraint;
  if (c === undefined || c.kind === "bad" || c.kind === "command") return false;
  return (inner.rule?.constraints ?? []).some(
    (r) => r.kind === c.kind && intersectConstraints(r, c) === null,
  );
}

/** Whether deny rule `n` catches every call `d` catches. */
function denies(n: DenyRule, d: DenyRule): boolean {
  if (matcherText(n.tool) !== matcherText(d.tool)) return false;
  if (n.constraint === undefined || n.constraint.kind === "bad") return true;
  return d.constraint !== undefined && within(d.constraint, n.constraint);
}

/** The grants of `next` that no grant of `prior` covers: what a change gained. */
export function gainedGrants(next: readonly Grant[], prior: readonly Grant[]): Grant[] {
  return next.filter((n) => !admitsNothing(n) && !prior.some((p) => grantCovers(p, n)));
}

/**
 * Whether a grant admits no call: an uninterpretable allow pattern, a deny that takes every call (a
 * removed family head, a bad pattern), or a deny at least as wide as the allow rule (`Bash(git
 * push:*)` allowed and denied). True only when certain.
 */
export function admitsNothing(g: Grant): boolean {
  const allow = g.rule?.constraints ?? [];
  return (
    allow.some((c) => c.kind === "bad") ||
    g.denies.some((d) => {
      if (d.constraint === undefined) return !oneToolOf(g, d);
      const c = d.constraint;
      return c.kind === "bad" || allow.some((a) => within(a, c));
    })
  );
}

/** The grants no other one covers (the first of equal ones kept): a union without repeats. */
export function widestGrants(grants: readonly Grant[]): Grant[] {
  const kept: Grant[] = [];
  for (const g of grants) {
    if (kept.some((k) => grantCovers(k, g))) continue;
    for (let i = kept.length - 1; i >= 0; i--) if (grantCovers(g, kept[i] as Grant)) kept.splice(i, 1);
    kept.push(g);
  }
  return kept;
}

/** The entries that shaped a grant: its allow rule's (one per hop) and its denies'. */
export function grantOrigins(g: Grant): Origin[] {
  return [...(g.rule?.origins ?? []), ...g.denies.map((d) => d.origin)];
}

export interface ShownPaths {
  /** Paths below it are shown relative to it. */
  readonly projectDir: string;
  /** Paths below it are shown as `~/…`. */
  readonly home: string;
}

/** `Bash(git log:*) except Bash(git push:*)`, `Read(src/**)`, `Write(/tmp/** ∧ /tmp/a/**)`. */
export function grantText(g: Grant, at: ShownPaths): string {
  const allow = (g.rule?.constraints ?? []).map((c) => constraintText(c, at)).join(" ∧ ");
  const head = allow ? `${g.tool}(${allow})` : g.tool;
  if (g.denies.length === 0) return head;
  const except = g.denies.map(
    (d) => `${matcherText(d.tool)}${d.constraint ? `(${constraintText(d.constraint, at)})` : ""}`,
  );
  return `${head} except ${except.join(", ")}`;
}

function constraintText(c: Constraint, at: ShownPaths): string {
  if (c.kind === "bad") return `${c.text} [cannot be interpreted]`;
  if (c.kind !== "path") return c.text;
  const p = c.compiled;
  for (const [dir, shown] of [
    [at.projectDir, ""],
    [at.home, "~/"],
  ] as const) {
    // A literal pattern's text is the plain path; a glob's has the folder's special characters escaped.
    const base = p.literal ? dir : escapeGlob(dir);
    if (p.text === base) return shown === "" ? "." : "~";
    if (p.text.startsWith(`${base}/`)) return `${shown}${p.text.slice(base.length + 1)}`;
  }
  return p.text;
}
