import path from "node:path";
import type { Denial, DenyRule, Hop, Scope, Unjudged } from "./types.js";

const NOT_RUN = "The tool was not executed.";

/**
 * The sentence of a denial, written for the model and the user alike: what was judged, which rule
 * or pattern set decided, and that the tool did not run. The one place a `Decision` becomes words:
 * the executor's tool_result, `agentmd tools --try`, body checks and the approval tier all show it.
 */
export function denialText(d: Denial): string {
  const text = (d.through ?? []).map(hopText).join("") + ownText(d);
  return d.narrowedBy
    ? text.replace(/ The tool was not executed\.$/, ` ${narrowedText(d)} ${NOT_RUN}`)
    : text;
}

/** Which hop narrowed the run so that the call is not allowed, and where it is written. */
function narrowedText(d: Denial): string {
  const by = d.narrowedBy;
  if (!by) return "";
  const label = hopLabel(by);
  return `${label.startsWith("the ") ? `The ${label.slice(4)}` : label} narrowed this run: its allowed-tools do not allow this call.`;
}

/** A hop and its file: `the skill 'notes' (skills/notes/SKILL.md)`, or `agent.md` alone. */
export const hopLabel = (by: { readonly hop: string; readonly file: string }) =>
  by.hop === by.file ? by.hop : `${by.hop} (${by.file})`;

function ownText(d: Denial): string {
  switch (d.reason) {
    case "not-offered":
      return `${d.tool} is not allowed in this run. ${NOT_RUN}`;
    case "denied-by-rule":
      return d.rule.constraint === undefined && d.subject === undefined
        ? `${d.tool} is not allowed: ${ruleName(d.rule)} removes it. ${NOT_RUN}`
        : `${described(d.tool, d.subject)} is denied by ${ruleName(d.rule)}${inPart(d.part)}. ${NOT_RUN}`;
    case "no-pattern-matched":
      return `${described(d.tool, d.subject)} is not allowed${d.part === undefined ? "" : `: its command '${clip(d.part)}' matches none of the patterns`}: ${scopeText(d.scope)}. ${NOT_RUN}`;
    case "bad-pattern":
      return `${d.tool} is allowed only by patterns that cannot be interpreted (${scopeText(d.scope)}). ${NOT_RUN}`;
    case "cannot-judge":
      return unjudgedText(d.tool, d.subject, d.why, d.part, d.scope);
  }
}

function unjudgedText(
  tool: string,
  subject: string | undefined,
  why: Unjudged,
  part: string | undefined,
  scope: Scope | undefined,
): string {
  const call = described(tool, subject);
  const scoped = scope ? `; ${scopeText(scope)}` : "";
  switch (why.kind) {
    case "no-value":
      return `${tool} call cannot be judged: ${noValueText(why)}${scope ? `, and ${scopeText(scope)}` : ""}. ${NOT_RUN}`;
    case "unreadable":
      return `${call} cannot be judged: ${why.detail}${inPart(part)}${scoped}. ${NOT_RUN}`;
    case "deny-unsure":
      return `${call} cannot be judged against ${unsureRules(why.rules)}: ${why.detail}${inPart(part)}. ${NOT_RUN}`;
    case "redirect-not-plain":
      return `${call} cannot be judged: it redirects output to a path that is not plain text. ${NOT_RUN}`;
    case "redirect-after-cd":
      return `${call} cannot be judged: it redirects output to the relative path '${shown(why.target)}' after a command that may change the working folder (such as 'cd'). ${NOT_RUN}`;
  }
}

function noValueText(why: Extract<Unjudged, { kind: "no-value" }>): string {
  if (why.field === undefined) return "it has no value a pattern can be matched against";
  return why.custom
    ? `its '${why.field}' is missing or not valid`
    : `its '${why.field}' is missing, empty or not text`;
}

function hopText(h: Hop): string {
  switch (h.via) {
    case "redirection":
      return `${described(h.tool, h.line)} writes ${shown(h.file)} by redirection, judged as a Write: `;
    case "symlink":
      return `${described(h.tool, h.subject)} leads through a symlink to ${shown(h.real)}: `;
    case "family":
      return `${described(h.tool, h.subject)} is judged by ${h.family}'s rules too (they cover ${h.tool}), and `;
  }
}

function scopeText(s: Scope): string {
  switch (s.kind) {
    case "patterns":
      return `this run allows ${s.tool} only for: ${s.patterns.join(", ")}`;
    case "deny-rule":
      return `the deny rule ${ruleName(s.rule)} applies`;
    case "writes-guarded":
      return "deny rules guard Write and Edit, and a redirection writes";
  }
}

/** The deny rule a line could meet, or the rules it could hide behind a runner from. */
const unsureRules = (rules: readonly DenyRule[]) =>
  rules.length === 1
    ? `the deny rule ${ruleName(rules[0] as DenyRule)}`
    : `the deny rules ${rules.map(ruleName).join(", ")}`;

const inPart = (part: string | undefined) => (part === undefined ? "" : ` (in '${clip(part)}')`);
const ruleName = (d: DenyRule) =>
  d.origin.file === PROTECTED_PATHS
    ? `'${d.origin.raw}', a protected path (the files that define runs are written only where an allow entry names them, as ${d.origin.raw} does)`
    : `'${d.origin.raw}' in ${path.basename(d.origin.file)}:${d.origin.line}`;

/** The origin of the runner's deny rules on the files that define runs (see invocation/protected-paths.ts). */
export const PROTECTED_PATHS = "the protected paths";

function described(tool: string, value: string | undefined): string {
  return value === undefined ? `${tool} call` : `${tool}(${shown(value)})`;
}

function shown(value: string): string {
  return JSON.stringify(clip(value)).slice(1, -1);
}

function clip(value: string): string {
  return value.length > 120 ? `${value.slice(0, 117)}...` : value;
}
