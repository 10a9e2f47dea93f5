import path from "node:path";
import { judgePath, matchOne, subjectOf, through } from "./judge-path.js";
import { NETWORK_PATH } from "./shell/parse-shell.js";
import type { ShellScript } from "./shell/shell-script.js";
import { type ListIndex, refusedOutright, type ToolView } from "./tool-view.js";
import type { Constraint, DecideContext, Decision, Denial } from "./types.js";

const ALLOWED: Decision = { kind: "allowed" };
const WRITERS = ["Write", "Edit"];

/**
 * Files a command line writes by redirection, judged as Write calls: fully when the command tool
 * is held to patterns, against the deny rules of Write and Edit when it is not. `2>&1`,
 * `> /dev/null` write no file.
 */
export function judgeWrites(
  index: ListIndex,
  view: ToolView,
  tool: string,
  line: string,
  script: ShellScript,
  ctx: DecideContext,
): Decision {
  const writes = script.writes;
  if (writes.length === 0) return ALLOWED;
  if (view.unrestricted && !writesGuarded(index)) return ALLOWED;
  for (let i = 0; i < writes.length; i++) {
    const w = writes[i] as string | null;
    if (w === null)
      return {
        kind: "denied",
        reason: "cannot-judge",
        tool,
        subject: line,
        why: { kind: "redirect-not-plain" },
      };
    if (script.movedFrom !== undefined && i >= script.movedFrom && !w.startsWith("/"))
      return {
        kind: "denied",
        reason: "cannot-judge",
        tool,
        subject: line,
        why: { kind: "redirect-after-cd", target: w },
      };
    const file = path.posix.resolve(ctx.cwd, w);
    const d = view.unrestricted ? writeDenied(index, file, ctx) : judgeWrite(index, file, ctx);
    if (d.kind === "denied") return through({ via: "redirection", tool, line, file }, d);
  }
  return ALLOWED;
}

/** Whether deny rules guard writing (Write or Edit, removed or with patterns): a redirection is judged by them. */
export function writesGuarded(index: ListIndex): boolean {
  return WRITERS.some((t) => {
    const v = index.view(t);
    return v.denies.length > 0 || v.removedBy !== undefined;
  });
}

/** A Write of `file`, judged as the Write tool's call would be. */
function judgeWrite(index: ListIndex, file: string, ctx: DecideContext): Decision {
  const view = index.view("Write");
  return (
    refusedOutright(view, "Write") ??
    judgePath(index, view, "Write", ctx.specs.get("Write"), { file_path: file }, ctx)
  );
}

/** The first deny rule of Write or Edit that may catch a write of `file`. */
function writeDenied(index: ListIndex, file: string, ctx: DecideContext): Decision {
  for (const tool of WRITERS) {
    const v = index.view(tool);
    const denied = (rule: NonNullable<ToolView["removedBy"]>): Denial => ({
      kind: "denied",
      reason: "denied-by-rule",
      tool,
      rule,
      subject: file,
    });
    if (v.removedBy) return denied(v.removedBy);
    const s = subjectOf(ctx.specs.get(tool), { file_path: file }, ctx.cwd);
    for (const d of v.denies) if (matchOne(d.constraint as Constraint, s) !== "no") return denied(d);
  }
  return ALLOWED;
}

/**
 * Why a line may open a network connection by bash itself (a `/dev/tcp/…` path in a redirection or
 * as a word, a redirection from a path that is not plain text, or, `denyList`, to one), if it may.
 */
export function networkReach(script: ShellScript, denyList: boolean): string | undefined {
  if (script.network) return script.network;
  for (const p of script.parts)
    for (const w of p.words)
      if (w !== null && NETWORK_PATH.test(w)) return `it names bash's network path '${w}'`;
  if (denyList && script.writes.includes(null))
    return "it redirects to a path that is not plain text, which may be bash's /dev/tcp/… network path";
  return undefined;
}
