import { readFileSync, realpathSync } from "node:fs";
import path from "node:path";
import { userClaudeDir } from "../definitions/discover.js";
import { HOOK_EVENTS } from "../definitions/hook-events.js";
import { readJsonFile } from "../definitions/json-file.js";
import { loadProject } from "../definitions/load.js";
import { normaliseHooks } from "../definitions/load-definition.js";
import { CUSTOM_TOOLS_DIR, PROJECT_SETTINGS } from "../definitions/project-inputs.js";
import { CREDENTIAL_COMMANDS } from "../definitions/settings.js";
import type { Definition, HooksSetting, McpServerConfig, Plugin } from "../definitions/types.js";
import { walkTree } from "../definitions/walk-tree.js";
import { readMcpJson } from "../mcp/read-mcp-json.js";
import { isInside } from "../shared/is-inside.js";
import { customToolFiles } from "../tools/custom/load-custom-tools.js";
import type { CodeItem, RepositoryCode } from "./code-item.js";
import { sha256 } from "./hash.js";
import { scriptsNamed } from "./hook-scripts.js";

/** Files beside the tool modules that a module may import, digested with them. */
const MODULE_FILES = /\.(?:[cm]?[jt]s|json|node|wasm)$/;
const MAX_TOOL_FILES = 2000;

/**
 * The code a project's files would have agentmd run, read without running any of it: each hook's
 * command (agent.md, subagents, skills, `.claude/settings*.json`) and the scripts inside the project
 * it names, each MCP server (`.mcp.json`, inline in agent.md and subagents: command line, url, env
 * and header keys), each custom tool module and the files beside it in `tools/`, the settings' env
 * keys, and agent.md's `baseUrl`. The user's own files (`~/.claude` of `home`) are the user's and
 * never listed. Contract: never throws; an unreadable file is left out (what cannot be read cannot
 * run either).
 */
export function repositoryCode(projectDir: string, home: string | undefined): RepositoryCode {
  const dir = realPath(path.resolve(projectDir));
  const user = userClaudeDir(home);
  const own = (file: string) => user === undefined || !isInside(path.resolve(file), path.resolve(user));
  const rel = (file: string) => path.relative(dir, file) || ".";
  const items: CodeItem[] = [];
  // A plugin the repository's own settings enable is the folder's code, wherever it is installed.
  const loaded = loadProject(dir, user === undefined ? {} : { userDir: user });
  const definitions = loaded.definitions.filter((d) =>
    d.plugin ? d.plugin.owner === "project" : own(d.file),
  );
  for (const p of loaded.plugins) if (p.owner === "project") items.push(...pluginItems(p));
  for (const d of definitions)
    if (d.surface !== "command") items.push(...hookItems(d.hooks, rel(d.file), dir));
  for (const name of PROJECT_SETTINGS) {
    const file = path.join(dir, name);
    if (own(file)) items.push(...settingsItems(file, rel(file), dir));
  }
  for (const s of readMcpJson(dir).servers) items.push(mcpItem(s.name, s.config, rel(s.origin.file)));
  for (const d of definitions) items.push(...inlineServers(d, rel(d.file)));
  items.push(...toolItems(dir));
  const main = definitions.find((d) => d.surface === "main");
  if (main?.surface === "main" && main.baseUrl !== undefined)
    items.push(
      item("baseUrl", `baseUrl ${rel(main.file)}`, `baseUrl ${main.baseUrl}`, rel(main.file), main.baseUrl),
    );
  return codeOf(dir, items);
}

/** A project's plugin: its hooks and the scripts in its folder they name, its MCP servers. */
function pluginItems(p: Plugin): CodeItem[] {
  const where = `plugin ${p.id}`;
  const out = hookItems(p.hooks, where, p.root);
  for (const s of p.servers) out.push(mcpItem(s.name, s.config, where));
  return out;
}

/** The listing and digest of `items` (repeats, such as a script two hooks name, once). */
export function codeOf(dir: string, items: readonly CodeItem[]): RepositoryCode {
  const byId = new Map(items.map((i) => [i.id, i]));
  const sorted = [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { dir, items: sorted, digest: sha256(JSON.stringify(sorted.map((i) => [i.id, i.hash]))) };
}

function item(kind: CodeItem["kind"], id: string, text: string, file: string, content: string | Buffer) {
  return { kind, id: `${kind} ${id}`, text, file, hash: sha256(content) };
}

function hookItems(hooks: HooksSetting | undefined, file: string, dir: string): CodeItem[] {
  const out: CodeItem[] = [];
  for (const event of HOOK_EVENTS)
    for (const { origin: _origin, ...h } of hooks?.[event] ?? []) {
      const what = `${event} (${h.matcher || "*"}): ${h.command}`;
      out.push(item("hook", `${file} ${what}`, `hook ${what}  — ${file}`, file, JSON.stringify(h)));
      for (const script of scriptsNamed(h.command, dir)) out.push(...fileItem("script", script, dir));
    }
  return out;
}

function settingsItems(file: string, rel: string, dir: string): CodeItem[] {
  const read = readJsonFile(file);
  if (read.kind !== "ok") return [];
  const value = read.json.value;
  if (typeof value !== "object" || value === null || Array.isArray(value)) return [];
  const v = value as Record<string, unknown>;
  const out = hookItems(normaliseHooks(v.hooks), rel, dir);
  // A credential command runs with the user's key or cloud credentials in reach: the project's code.
  for (const key of CREDENTIAL_COMMANDS)
    if (typeof v[key] === "string")
      out.push(item("credential", `${rel} ${key}`, `${key} '${v[key]}'  — ${rel}`, rel, String(v[key])));
  const env = v.env;
  if (typeof env === "object" && env !== null && !Array.isArray(env))
    for (const [key, val] of Object.entries(env))
      out.push(item("env", `${rel} ${key}`, `settings env ${key}  — ${rel}`, rel, JSON.stringify(val)));
  return out;
}

function inlineServers(d: Definition, file: string): CodeItem[] {
  const refs = d.surface === "main" || d.surface === "agent" ? (d.mcpServers ?? []) : [];
  return refs.flatMap((r) => (r.kind === "inline" ? [mcpItem(r.name, r.config, file)] : []));
}

function mcpItem(name: string, c: McpServerConfig, file: string): CodeItem {
  const line = c.url ?? [c.command ?? "", ...(c.args ?? [])].join(" ");
  const keys = [
    ...(c.env ? [`env: ${Object.keys(c.env).join(", ")}`] : []),
    ...(c.headers ? [`headers: ${Object.keys(c.headers).join(", ")}`] : []),
    ...(c.cwd !== undefined ? [`cwd: ${c.cwd}`] : []),
  ];
  const text = `MCP server '${name}': ${line}${keys.length ? ` (${keys.join("; ")})` : ""}  — ${file}`;
  return item("mcp", `${file} ${name}`, text, file, JSON.stringify(c));
}

/** Each module the custom-tool loader imports, and every file beside them it may import. */
function toolItems(dir: string): CodeItem[] {
  const modules = customToolFiles(dir);
  if (modules.length === 0) return [];
  const beside = walkTree(path.join(dir, CUSTOM_TOOLS_DIR), { bound: dir, keep: (n) => MODULE_FILES.test(n) })
    .filter((f) => !modules.includes(f))
    .slice(0, MAX_TOOL_FILES);
  return [
    ...modules.flatMap((m) => fileItem("tool", m, dir)),
    ...beside.flatMap((f) => fileItem("beside", f, dir)),
  ];
}

const FILE_TEXT = {
  tool: (rel: string) => `custom tool module ${rel}`,
  beside: (rel: string) => `file beside the tool modules ${rel}`,
  script: (rel: string) => `script ${rel} (run by a hook)`,
};

/** A file whose content is code: its path is its id, its bytes its hash (unreadable: none). */
function fileItem(kind: keyof typeof FILE_TEXT, file: string, dir: string): CodeItem[] {
  const rel = path.relative(dir, file);
  try {
    const bytes = readFileSync(file);
    return [item(kind === "script" ? "script" : "tool", rel, FILE_TEXT[kind](rel), rel, bytes)];
  } catch {
    return [];
  }
}

function realPath(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}
