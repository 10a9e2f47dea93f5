import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { resultText } from "../loop/execute-call.js";
import { type Hooks, runHooks } from "../loop/hooks.js";
import { decide } from "../permissions/decide.js";
import type { PermissionList } from "../permissions/types.js";
import { executeTool, type ToolRegistry } from "../tools/registry.js";
import type { ToolContext } from "../tools/types.js";
import { substituteArguments, usesArguments } from "./arguments.js";

export interface ExpandContext {
  /** How the user named it (`/git:commit`), for messages. */
  readonly label: string;
  readonly args: string;
  /** The invocation's effective list (caller ∩ callee): `!` commands and `@` files are judged by it. */
  readonly list: PermissionList;
  readonly registry: ToolRegistry;
  readonly toolCtx: ToolContext;
  /** A skill's folder: `${SKILL_DIR}` (and `${CLAUDE_SKILL_DIR}`) point here. */
  readonly skillDir?: string;
  /** The hooks of the invocation: `!` commands and `@` files pass them as any tool call does. */
  readonly hooks?: Hooks;
  readonly sessionId?: string;
}

export type Expanded =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly message: string };

/** `!`cmd`` at a line start or after whitespace; a ```! fenced block. */
const COMMAND_BLOCK = /(?<=^|\s)!`([^`\n]+)`|^```!\s*\n([\s\S]*?)\n```[ \t]*$/gm;
const ATTACHMENT = /(?<=^|\s)@((?:~\/|\.{0,2}\/)?[A-Za-z0-9_][^\s`'"<>()]*)/g;

/**
 * A command or skill body made ready for the model: arguments substituted; `!` commands run first
 * through the Bash permission check of the effective list, with substituted arguments shell-quoted
 * (an argument can never become shell syntax), their output put in their place; `@path` files that
 * exist attached under the Read permission. A denied or failing command aborts the invocation with
 * a message that names it.
 */
export async function expandBody(body: string, cx: ExpandContext): Promise<Expanded> {
  const source = cx.skillDir
    ? body.replace(/\$\{(?:CLAUDE_)?SKILL_DIR\}/g, shownPath(cx.toolCtx.cwd, cx.skillDir))
    : body;
  const parts: string[] = [];
  let last = 0;
  for (const m of source.matchAll(COMMAND_BLOCK)) {
    parts.push(substituteArguments(source.slice(last, m.index), cx.args));
    const command = substituteArguments((m[1] ?? m[2] ?? "").trim(), cx.args, true);
    const ran = await runCommand(command, cx);
    if (!ran.ok) return ran;
    parts.push(ran.text);
    last = m.index + m[0].length;
  }
  parts.push(substituteArguments(source.slice(last), cx.args));
  let text = parts.join("");
  if (!usesArguments(source) && cx.args.trim() !== "") text = `${text.trimEnd()}\n\nARGUMENTS: ${cx.args}`;
  const attached = await attachFiles(text, cx);
  if (!attached.ok) return attached;
  return { ok: true, text: attached.text.trim() };
}

async function runCommand(command: string, cx: ExpandContext): Promise<Expanded> {
  const bash = cx.registry.get("Bash");
  const d = decide(
    cx.list,
    { tool: "Bash", input: { command } },
    { specs: cx.registry.specs, cwd: cx.toolCtx.cwd },
  );
  if (d.kind === "denied")
    return { ok: false, message: `${cx.label}: the command !\`${command}\` was not run: ${d.message}` };
  if (!bash)
    return {
      ok: false,
      message: `${cx.label}: the command !\`${command}\` was not run: no Bash tool is registered`,
    };
  const blocked = await preHooks(cx, "Bash", { command });
  if (blocked) {
    return {
      ok: false,
      message: `${cx.label}: the command !\`${command}\` was not run: blocked by a PreToolUse hook: ${blocked}`,
    };
  }
  const r = await executeTool(bash.tool, { command }, cx.toolCtx);
  await postHooks(cx, "Bash", { command }, resultText(r), r.isError);
  const out = resultText(r).replace(/\n?\[exit code 0\]$/, "");
  if (r.isError)
    return { ok: false, message: `${cx.label}: the command !\`${command}\` failed: ${out.trim()}` };
  return { ok: true, text: out.trimEnd() };
}

async function attachFiles(text: string, cx: ExpandContext): Promise<Expanded> {
  const files: string[] = [];
  for (const m of text.matchAll(ATTACHMENT)) {
    const rel = m[1] as string;
    const file = path.resolve(
      cx.toolCtx.cwd,
      rel.startsWith("~/") ? path.join(cx.toolCtx.env?.HOME ?? "~", rel.slice(2)) : rel,
    );
    if (files.includes(file) || !existsSync(file) || !statSync(file).isFile()) continue;
    const d = decide(
      cx.list,
      { tool: "Read", input: { file_path: file } },
      { specs: cx.registry.specs, cwd: cx.toolCtx.cwd },
    );
    if (d.kind === "denied")
      return { ok: false, message: `${cx.label}: @${rel} was not attached: ${d.message}` };
    files.push(file);
  }
  if (files.length === 0) return { ok: true, text };
  const read = cx.registry.get("Read");
  if (!read)
    return { ok: false, message: `${cx.label}: files cannot be attached: no Read tool is registered` };
  const blocks: string[] = [];
  for (const file of files) {
    const blocked = await preHooks(cx, "Read", { file_path: file });
    if (blocked) {
      return {
        ok: false,
        message: `${cx.label}: @${path.relative(cx.toolCtx.cwd, file)} was not attached: blocked by a PreToolUse hook: ${blocked}`,
      };
    }
    const r = await executeTool(read.tool, { file_path: file }, cx.toolCtx);
    await postHooks(cx, "Read", { file_path: file }, resultText(r), r.isError);
    if (r.isError)
      return {
        ok: false,
        message: `${cx.label}: @${path.relative(cx.toolCtx.cwd, file)} was not attached: ${resultText(r)}`,
      };
    blocks.push(`<file path="${path.relative(cx.toolCtx.cwd, file) || file}">\n${resultText(r)}\n</file>`);
  }
  return { ok: true, text: `${text.trimEnd()}\n\n${blocks.join("\n\n")}` };
}

/** A folder as the model is told it: relative to the working folder when inside it. */
export function shownPath(cwd: string, dir: string): string {
  const rel = path.relative(cwd, dir);
  return rel === "" ? "." : rel.startsWith("..") || path.isAbsolute(rel) ? dir : rel;
}

function hookPayload(cx: ExpandContext, tool: string, input: Record<string, unknown>) {
  return {
    tool_name: tool,
    tool_input: input,
    run_id: cx.label,
    session_id: cx.sessionId ?? "",
    cwd: cx.toolCtx.cwd,
  };
}

const hookCtx = (cx: ExpandContext) => ({
  logger: cx.toolCtx.logger,
  ...(cx.toolCtx.env && { env: cx.toolCtx.env }),
});

/** The reason a PreToolUse hook blocks this call, if one does. */
async function preHooks(
  cx: ExpandContext,
  tool: string,
  input: Record<string, unknown>,
): Promise<string | undefined> {
  const r = await runHooks(
    cx.hooks?.PreToolUse,
    { ...hookPayload(cx, tool, input), hook_event_name: "PreToolUse" },
    hookCtx(cx),
  );
  return r.kind === "block" ? r.message : undefined;
}

async function postHooks(
  cx: ExpandContext,
  tool: string,
  input: Record<string, unknown>,
  content: string,
  isError: boolean,
): Promise<void> {
  const payload = {
    ...hookPayload(cx, tool, input),
    hook_event_name: "PostToolUse" as const,
    tool_response: { content, is_error: isError },
  };
  await runHooks(cx.hooks?.PostToolUse, payload, hookCtx(cx));
}
