import path from "node:path";
import type { Definition, Surface } from "../definitions/types.js";
import { type DefinitionListContext, definitionList } from "./definition-list.js";
import { allowsNothing, intersect, offered, UNRESTRICTED } from "./permission-list.js";
import { canonicalToolName, covers, matcherText } from "./tool-matcher.js";
import type { DenyRule, Origin, PermissionList } from "./types.js";

/** One hop of a chain: `main`, `agent:reviewer`, `skill:pdf-tools`, `command:git:commit`. */
export interface Hop {
  readonly label: string;
  readonly definition?: Definition;
  /** This hop's own lists. */
  readonly own: PermissionList;
  /** Everything up to and including this hop. */
  readonly effective: PermissionList;
}

const PREFIX: Record<string, Surface> = { agent: "agent", skill: "skill", command: "command" };

export type ChainResult = { ok: true; hops: Hop[] } | { ok: false; error: string };

/**
 * Resolves `main,agent:reviewer,skill:pdf-tools` against loaded definitions and intersects the
 * lists hop by hop. A project without agent.md has an unrestricted main agent.
 */
export function resolveChain(
  spec: string,
  definitions: readonly Definition[],
  ctx: DefinitionListContext,
  /** What the chain starts under: the session's deny rules (settings, command line). */
  start: PermissionList = UNRESTRICTED,
): ChainResult {
  const labels = spec
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (labels.length === 0) return { ok: false, error: "the chain is empty; start it with 'main'" };
  const hops: Hop[] = [];
  let effective = start;
  for (const label of labels) {
    let def: Definition | undefined;
    if (label === "main") {
      def = definitions.find((d) => d.surface === "main");
    } else {
      const colon = label.indexOf(":");
      const surface = PREFIX[label.slice(0, colon)];
      const name = label.slice(colon + 1);
      if (colon === -1 || !surface) {
        return {
          ok: false,
          error: `unknown hop '${label}': write main, agent:NAME, skill:NAME or command:NAME`,
        };
      }
      def = definitions.find((d) => d.surface === surface && d.name === name);
      if (!def) {
        const known = definitions.filter((d) => d.surface === surface).map((d) => d.name);
        return {
          ok: false,
          error: `no ${surface} named '${name}' is loaded${known.length ? ` (loaded: ${known.join(", ")})` : ""}`,
        };
      }
    }
    const own = def ? definitionList(def, ctx) : UNRESTRICTED;
    effective = intersect(effective, own);
    hops.push({ label, own, effective, ...(def && { definition: def }) });
  }
  return { ok: true, hops };
}

export interface ToolReport {
  readonly name: string;
  /** Every call allowed (no pattern anywhere in the chain). */
  readonly unrestricted: boolean;
  /** Alternatives, any of which admits a call; each is a conjunction of patterns. */
  readonly patterns: readonly {
    readonly text: string;
    readonly origins: readonly Origin[];
    /** A pattern in it cannot be interpreted, so this alternative admits no call. */
    readonly admitsNothing: boolean;
  }[];
  readonly denies: readonly { readonly text: string; readonly origin: Origin }[];
}

export interface RemovedTool {
  readonly name: string;
  readonly hop: string;
  readonly why: string;
}

export interface ChainReport {
  readonly hops: readonly { readonly label: string; readonly file?: string }[];
  readonly offered: readonly ToolReport[];
  readonly removed: readonly RemovedTool[];
  /** True when no tool survives: a run at the end of this chain is refused. */
  readonly allowsNothing: boolean;
  /** Where the chain became empty: that hop's caller and callee lists, as written rules. */
  readonly emptyAt?: {
    readonly hop: string;
    readonly caller: readonly string[];
    readonly callee: readonly string[];
  };
}

/** `Read`, `Bash(git:*)`, `* except Read`: a list's rules as a reader would write them. */
export function ruleTexts(list: PermissionList): string[] {
  if (list.rules === null) return ["every tool"];
  return list.rules.map((r) => {
    const patterns = r.constraints.map((c) => c.text).join(" ∧ ");
    return `${matcherText(r.tool)}${patterns ? `(${patterns})` : ""}`;
  });
}

const at = (o: Origin, root: string) => `${path.relative(root, o.file) || o.file}:${o.line}:${o.column}`;

/** What a run at the end of the chain may do, tool by tool, and which hop removed what. */
export function describeChain(hops: readonly Hop[], toolNames: readonly string[]): ChainReport {
  const last = hops[hops.length - 1];
  const effective = last?.effective ?? UNRESTRICTED;
  const names = [...new Set(toolNames.map(canonicalToolName))];
  const finalOffered = new Set(offered(effective, names));
  const report: ToolReport[] = [];
  for (const name of names) {
    if (!finalOffered.has(name)) continue;
    const rules = effective.rules?.filter((r) => covers(r.tool, name)) ?? null;
    const unrestricted = rules === null || rules.some((r) => r.constraints.length === 0);
    report.push({
      name,
      unrestricted,
      patterns: unrestricted
        ? []
        : (rules ?? []).map((r) => ({
            text: r.constraints.map((c) => c.text).join(" ∧ "),
            origins: r.origins,
            admitsNothing: r.constraints.some((c) => c.kind === "bad"),
          })),
      denies: effective.deny
        .filter(
          (d): d is DenyRule & { constraint: NonNullable<DenyRule["constraint"]> } =>
            !!d.constraint && covers(d.tool, name),
        )
        .map((d) => ({ text: d.constraint.text, origin: d.origin })),
    });
  }
  const removed: RemovedTool[] = [];
  for (const name of names) {
    if (finalOffered.has(name)) continue;
    let before = true;
    for (const hop of hops) {
      const now = offered(hop.effective, [name]).length > 0;
      if (before && !now) {
        const deny = hop.own.deny.find((d) => !d.constraint && covers(d.tool, name));
        const why = deny
          ? `denied by '${deny.origin.raw}'`
          : hop.own.rules !== null && !hop.own.rules.some((r) => covers(r.tool, name))
            ? "not in its list"
            : "its patterns share nothing with the caller's";
        removed.push({ name, hop: hop.label, why });
        break;
      }
      before = now;
    }
  }
  const emptyIndex = hops.findIndex((h) => allowsNothing(h.effective));
  const emptyHop = hops[emptyIndex];
  const emptyAt = emptyHop && {
    hop: emptyHop.label,
    caller: ruleTexts(hops[emptyIndex - 1]?.effective ?? UNRESTRICTED),
    callee: ruleTexts(emptyHop.own),
  };
  return {
    hops: hops.map((h) => ({ label: h.label, ...(h.definition && { file: h.definition.file }) })),
    offered: report,
    removed,
    allowsNothing: allowsNothing(effective),
    ...(emptyAt && { emptyAt }),
  };
}

/** Human-readable lines of a report, paths relative to `root`. */
export function formatChainReport(r: ChainReport, root: string): string[] {
  const lines: string[] = [];
  lines.push(
    `chain: ${r.hops.map((h) => (h.file ? `${h.label} (${path.relative(root, h.file)})` : h.label)).join(" → ")}`,
  );
  if (r.allowsNothing) {
    lines.push("no tool survives this chain: a run here is refused.");
    if (r.emptyAt) {
      const hopIndex = r.hops.findIndex((h) => h.label === r.emptyAt?.hop);
      lines.push(
        `  the caller (${
          r.hops
            .slice(0, hopIndex)
            .map((h) => h.label)
            .join(" → ") || "nothing"
        }) allows: ${r.emptyAt.caller.join(", ") || "nothing"}`,
      );
      lines.push(`  ${r.emptyAt.hop} allows: ${r.emptyAt.callee.join(", ") || "nothing"}`);
      lines.push("  they have no tool call in common.");
    }
  } else {
    lines.push("offered to the model:");
    const width = Math.max(...r.offered.map((t) => t.name.length), 4);
    for (const t of r.offered) {
      const head = `  ${t.name.padEnd(width)}  `;
      if (t.unrestricted) lines.push(`${head}every call`);
      t.patterns.forEach((p, i) => {
        const note = p.admitsNothing ? " (a pattern cannot be interpreted: admits nothing)" : "";
        lines.push(
          `${i === 0 ? head : " ".repeat(head.length)}${p.text}${note}  [${p.origins.map((o) => at(o, root)).join(", ")}]`,
        );
      });
      for (const d of t.denies)
        lines.push(`${" ".repeat(head.length)}except ${d.text}  [deny ${at(d.origin, root)}]`);
    }
    if (r.offered.length === 0) lines.push("  (none of agentmd's tools; only tools supplied at run time)");
  }
  if (r.removed.length > 0) {
    lines.push("removed along the way:");
    for (const t of r.removed) lines.push(`  ${t.name}: at ${t.hop}, ${t.why}`);
  }
  return lines;
}
