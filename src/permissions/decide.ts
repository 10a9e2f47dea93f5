import { judgeCommandCall } from "./judge-command.js";
import { judgePath } from "./judge-path.js";
import { canonicalToolName } from "./tool-matcher.js";
import { indexOf, refusedOutright } from "./tool-view.js";
import type { DecideContext, Decision, Denial, Narrowing, PermissionList, ToolCall } from "./types.js";

/**
 * Judges one call against an effective list. Pure (a `realPath` lookup and the shell parser are
 * the caller's to give): no other I/O, no logging, same answer every time. Deny rules first (deny
 * beats allow), then the allow rules of the tool: one of them must admit the call. A command line
 * is judged command by command; a path on its lexical and (given `realPath`) its real path; a Grep
 * or Glob path by Read's rules too, and a Write path by Edit's. A denial says which rule or
 * pattern set decided and what it judged; `denialText` words it where it is shown.
 */
export function decide(list: PermissionList, call: ToolCall, ctx: DecideContext): Decision {
  const d = judge(list, call, ctx);
  return d.kind === "denied" && list.narrowedBy ? withNarrowing(d, list.narrowedBy, call, ctx) : d;
}

/**
 * A denial the allow-list made (not a deny rule), with the first hop whose own list alone does not
 * admit the call: the hop that narrowed the run.
 */
function withNarrowing(d: Denial, hops: readonly Narrowing[], call: ToolCall, ctx: DecideContext): Denial {
  if (d.reason === "denied-by-rule" || (d.reason === "cannot-judge" && d.why.kind === "deny-unsure"))
    return d;
  const by = hops.find(
    (h) => h.own.rules !== null && judge({ rules: h.own.rules, deny: [] }, call, ctx).kind === "denied",
  );
  return by ? { ...d, narrowedBy: { hop: by.hop, file: by.file } } : d;
}

function judge(list: PermissionList, call: ToolCall, ctx: DecideContext): Decision {
  const tool = canonicalToolName(call.tool);
  const index = indexOf(list);
  const view = index.view(tool);
  const refused = refusedOutright(view, tool);
  if (refused) return refused;
  const spec = ctx.specs.get(tool);
  const input = isRecord(call.input) ? call.input : {};
  return spec?.kind === "command"
    ? judgeCommandCall(index, view, tool, spec, input, ctx)
    : judgePath(index, view, tool, spec, input, ctx);
}

function isRecord(x: unknown): x is Readonly<Record<string, unknown>> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}
