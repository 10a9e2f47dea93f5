import type { ReachedGrant } from "../../audit/audit.js";
import type { AuditDiff, EntryDiff } from "../../audit/audit-diff.js";
import type { CodeGain } from "../../audit/code-diff.js";
import { type Grant, grantText, type ShownPaths } from "../../permissions/capabilities.js";
import { grantJson, reachedJson, shapedBy, shownFile } from "./audit-format.js";

/** Which revision the working tree was compared with. */
export interface Compared {
  readonly revision: string;
  readonly commit: string;
  /** Why the revision's side is taken as empty (it could not run), when it is. */
  readonly notes: readonly string[];
}

/** `agentmd audit --diff REV --json`. Origins of what was lost name the files as they were at REV. */
export function diffJson(d: AuditDiff, c: Compared, at: ShownPaths, code: readonly CodeGain[] = []) {
  return {
    version: 1,
    revision: c.revision,
    commit: c.commit,
    widened: d.widened || code.length > 0,
    notes: c.notes,
    code: code.map((g) => ({
      kind: g.input.kind,
      change: g.change,
      text: g.input.text,
      file: shownFile(g.input.file, at),
      line: g.input.line,
      ...(g.change === "removed" && { at: c.revision }),
    })),
    entryPoints: d.entryPoints.map((e) => ({
      name: e.name,
      status: e.status,
      widened: e.widened,
      gained: e.gained.map((r) => reachedJson(r, at)),
      lost: e.lost.map((r) => reachedJson(r, at)),
      ...(e.sandbox && { sandboxed: e.sandbox }),
    })),
    approval: {
      ...(d.mode && { mode: d.mode }),
      runsWithoutAsking: {
        gained: d.unasked.gained.map((g) => grantJson(g, at)),
        lost: d.unasked.lost.map((g) => grantJson(g, at)),
      },
      asksEachTime: {
        gained: d.asks.gained.map((g) => grantJson(g, at)),
        lost: d.asks.lost.map((g) => grantJson(g, at)),
      },
    },
  };
}

/** The comparison as text: `+` gained, `−` lost, per entry point, then the approval tier. */
export function diffText(
  d: AuditDiff,
  c: Compared,
  at: ShownPaths,
  code: readonly CodeGain[] = [],
): string[] {
  const short = c.commit.slice(0, 12);
  const widened = d.entryPoints.filter((e) => e.widened).length;
  const codeNote =
    code.length > 0
      ? `; ${code.length} change${code.length === 1 ? "" : "s"} to the code and settings a run depends on`
      : "";
  const lines = [
    `compared with ${c.revision} (${short}): ${
      d.widened
        ? `widened — ${widened} entry point${widened === 1 ? "" : "s"} can do what ${widened === 1 ? "it" : "they"} could not${widened === 0 ? " (see approval below)" : ""}${codeNote}`
        : code.length > 0
          ? `widened — ${code.length} change${code.length === 1 ? "" : "s"} to the code and settings a run depends on`
          : "nothing gained"
    }`,
    ...c.notes.map((n) => `note: ${n}`),
  ];
  if (code.length > 0)
    lines.push("", "code and settings (read, not run):", ...code.map((g) => codeLine(g, c, at)));
  for (const e of d.entryPoints) lines.push("", ...entryLines(e, c, at));
  const approval = approvalLines(d, c, at);
  if (approval.length > 0) lines.push("", ...approval);
  if (d.entryPoints.length === 0 && approval.length === 0)
    lines.push("no entry point changed what it can do");
  return lines;
}

function entryLines(e: EntryDiff, c: Compared, at: ShownPaths): string[] {
  const status = e.status === "added" ? "  (new entry point)" : e.status === "removed" ? "  (removed)" : "";
  const lines = [`${e.name}${status}`];
  const rows = [...e.gained.map((r) => ["+", r] as const), ...e.lost.map((r) => ["−", r] as const)];
  const texts = rows.map(([, r]) => grantText(r.grant, at));
  const width = Math.max(0, ...texts.map((t) => t.length));
  rows.forEach(([sign, r], i) => {
    lines.push(`  ${sign} ${(texts[i] as string).padEnd(width)}  ${via(r, sign, c, at)}`);
  });

  if (e.sandbox)
    lines.push(`  ${e.sandbox.widened ? "+" : "−"} commands sandboxed: ${e.sandbox.from} → ${e.sandbox.to}`);
  if (e.status === "added" && rows.length === 0) lines.push("  nothing its runs could not do before");
  return lines;
}

const CHANGE_WORDS = { added: "added", changed: "changed", removed: "removed (no longer runs)" } as const;

function codeLine(g: CodeGain, c: Compared, at: ShownPaths): string {
  const where = `${shownFile(g.input.file, at)}:${g.input.line}${g.change === "removed" ? ` at ${c.revision}` : ""}`;
  return `  + ${g.input.text}: ${CHANGE_WORDS[g.change]}  [${where}]`;
}

const via = (r: ReachedGrant, sign: string, c: Compared, at: ShownPaths) =>
  `via ${r.chain.join(" → ")}  [${shapedBy(r.grant, at).join(", ")}${sign === "−" ? ` at ${c.revision}` : ""}]`;

function approvalLines(d: AuditDiff, c: Compared, at: ShownPaths): string[] {
  const lines: string[] = [];
  if (d.mode) lines.push(`${d.mode.widened ? "+" : "−"} approval mode: ${d.mode.from} → ${d.mode.to}`);
  const list = (sign: string, what: string, gs: readonly Grant[], old: boolean) => {
    for (const g of gs)
      lines.push(
        `${sign} ${what}: ${grantText(g, at)}  [${shapedBy(g, at).join(", ")}${old ? ` at ${c.revision}` : ""}]`,
      );
  };
  list("+", "runs without asking", d.unasked.gained, false);
  list("−", "runs without asking", d.unasked.lost, true);
  list("+", "no longer asks each time", d.asks.lost, true);
  list("−", "asks each time", d.asks.gained, false);
  return lines;
}
