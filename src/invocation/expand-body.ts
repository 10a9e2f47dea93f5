import path from "node:path";
import { type CallContext, executeCall, resultText } from "../loop/execute-call.js";
import { loadShellParser } from "../permissions/shell/parse-shell.js";
import type { ToolFs } from "../tools/builtin/fs.js";
import { quoteIntoCommand, substituteArguments, usesArguments } from "./arguments.js";
import { resourceBlocks } from "./attach-resources.js";
import { ATTACHMENT, COMMAND_BLOCK } from "./body-syntax.js";
import type { BodyPrompt, Expanded } from "./run-types.js";

/**
 * A command or skill body made ready for the model: arguments substituted; `!` commands run as Bash
 * calls of the run (through its one tool-call path: permission, schema gate, hooks, execute, events),
 * with substituted arguments shell-quoted (an argument can never become shell syntax), their output
 * put in their place; `@path` files that exist attached as Read calls of the run. A denied or failing
 * command aborts the invocation with a message that names it.
 */
export async function expandBody(
  prompt: BodyPrompt,
  run: CallContext,
  fs: ToolFs,
  servers: ReadonlySet<string> = new Set(),
): Promise<Expanded> {
  const call = atCallerLevel(prompt, run);
  const source = prompt.skillDir
    ? prompt.body.replace(/\$\{(?:CLAUDE_)?SKILL_DIR\}/g, shownPath(call.cwd, prompt.skillDir))
    : prompt.body;
  const calls = { next: 0 };
  const parts: string[] = [];
  let last = 0;
  for (const m of source.matchAll(COMMAND_BLOCK)) {
    parts.push(substituteArguments(source.slice(last, m.index), prompt.args));
    const shell = await loadShellParser();
    const written = (m[1] ?? m[2] ?? "").trim();
    const quoted = quoteIntoCommand(written, prompt.args, shell);
    if (!quoted.ok)
      return {
        ok: false,
        message: `${prompt.label}: the command !\`${written}\` was not run: ${quoted.why}`,
      };
    const ran = await runCommand(quoted.command, prompt.label, call, calls);
    if (!ran.ok) return ran;
    parts.push(ran.text);
    last = m.index + m[0].length;
  }
  parts.push(substituteArguments(source.slice(last), prompt.args));
  let text = parts.join("");
  if (!usesArguments(source) && prompt.args.trim() !== "")
    text = `${text.trimEnd()}\n\nARGUMENTS: ${prompt.args}`;
  // Both read from the body as written: a file's text or a resource's never attaches more.
  const resources = await resourceBlocks(text, prompt.label, servers, call);
  if (!resources.ok) return resources;
  const attached = await attachFiles(text, prompt.label, call, fs, calls);
  if (!attached.ok) return attached;
  return { ok: true, text: [attached.text.trimEnd(), ...resources.blocks].join("\n\n").trim() };
}

/**
 * The run's calls as a body's lines are judged: at the caller's level (its list, its approvals, and
 * the command's own list as pre-approval), never wider than the caller.
 */
function atCallerLevel(prompt: BodyPrompt, call: CallContext): CallContext {
  const caller = prompt.caller;
  if (!caller) return call;
  const { approved: _, ...state } = call.state;
  return {
    ...call,
    state: { ...state, list: caller.list, ...(caller.approved && { approved: caller.approved }) },
  };
}

/** One call of the run's tool-call path, with an id of its own (`body_1`, …). */
async function callTool(
  name: string,
  input: Record<string, unknown>,
  call: CallContext,
  calls: { next: number },
) {
  calls.next++;
  return executeCall({ id: `body_${calls.next}`, name, input }, call);
}

async function runCommand(
  command: string,
  label: string,
  call: CallContext,
  calls: { next: number },
): Promise<Expanded> {
  const { decision, result } = await callTool("Bash", { command }, call, calls);
  const said = resultText(result);
  const what = `${label}: the command !\`${command}\``;
  if (decision === "blocked-by-hook")
    return { ok: false, message: `${what} was not run: ${said.replace(/^Blocked/, "blocked")}` };
  if (decision !== "allowed") return { ok: false, message: `${what} was not run: ${said}` };
  const out = said.replace(/\n?\[exit code 0\]$/, "");
  if (result.isError) return { ok: false, message: `${what} failed: ${out.trim()}` };
  return { ok: true, text: out.trimEnd() };
}

async function attachFiles(
  text: string,
  label: string,
  call: CallContext,
  fs: ToolFs,
  calls: { next: number },
): Promise<Expanded> {
  const files: string[] = [];
  for (const m of text.matchAll(ATTACHMENT)) {
    const rel = m[1] as string;
    const file = path.resolve(
      call.cwd,
      rel.startsWith("~/") ? path.join(call.env?.HOME ?? "~", rel.slice(2)) : rel,
    );
    if (!files.includes(file) && (await isFile(fs, file))) files.push(file);
  }
  const blocks: string[] = [];
  for (const file of files) {
    const shown = path.relative(call.cwd, file) || file;
    const { decision, result } = await callTool("Read", { file_path: file }, call, calls);
    if (decision !== "allowed" || result.isError)
      return { ok: false, message: `${label}: @${shown} was not attached: ${resultText(result)}` };
    blocks.push(`<file path="${shown}">\n${resultText(result)}\n</file>`);
  }
  return { ok: true, text: blocks.length ? `${text.trimEnd()}\n\n${blocks.join("\n\n")}` : text };
}

/** Whether a mention names a file: only files are attached; `@someone` stays text. */
async function isFile(fs: ToolFs, file: string): Promise<boolean> {
  try {
    return (await fs.stat(file)).isFile();
  } catch {
    return false;
  }
}

/** A folder as the model is told it: relative to the working folder when inside it. */
export function shownPath(cwd: string, dir: string): string {
  const rel = path.relative(cwd, dir);
  return rel === "" ? "." : rel.startsWith("..") || path.isAbsolute(rel) ? dir : rel;
}
