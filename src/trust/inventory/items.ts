import { readFileSync } from "node:fs";
import path from "node:path";
import type { McpServerConfig, Plugin } from "../../definitions/types.js";
import { walkTree } from "../../definitions/walk-tree.js";
import type { CodeItem } from "../code-item.js";
import { sha256 } from "../hash.js";
import type { Follower } from "./follow.js";
import type { ToolFiles } from "./tool-files.js";

const MAX_PLUGIN_FILES = 5000;

/** Every file of each plugin's folder, with the plugin's id. */
export function pluginFiles(plugins: readonly Plugin[]): [string, string][] {
  return plugins.flatMap((p) =>
    walkTree(p.root, { bound: p.root })
      .slice(0, MAX_PLUGIN_FILES)
      .map((f): [string, string] => [f, p.id]),
  );
}

export function item(
  kind: CodeItem["kind"],
  id: string,
  text: string,
  file: string,
  content: string | Buffer,
): CodeItem {
  return { kind, id: `${kind} ${id}`, text, file, hash: sha256(content) };
}

/** `npx -y server --flag (env: TOKEN; cwd: x)` or the url: never an env value or a header. */
export function mcpLine(c: McpServerConfig): string {
  const line = c.url ?? [c.command ?? "", ...(c.args ?? [])].join(" ");
  const keys = [
    ...(c.env ? [`env: ${Object.keys(c.env).join(", ")}`] : []),
    ...(c.headers ? [`headers: ${Object.keys(c.headers).join(", ")}`] : []),
    ...(c.cwd !== undefined ? [`cwd: ${c.cwd}`] : []),
  ];
  return `${line}${keys.length ? ` (${keys.join("; ")})` : ""}`;
}

/**
 * One item per file of code, by path, its bytes its hash: the tool modules and what is beside them,
 * every file of the project's plugins, every file followed; then one per thing not followed.
 */
export function fileItems(
  dir: string,
  follow: Follower,
  tools: ToolFiles,
  plugins: readonly (readonly [string, string])[],
): CodeItem[] {
  const out: CodeItem[] = [];
  const done = new Set<string>();
  const rel = (f: string) => path.relative(dir, f);
  const add = (file: string, id: string, text: string) => {
    if (done.has(file)) return;
    done.add(file);
    const bytes = read(file);
    if (bytes !== undefined)
      out.push(
        item(id === rel(file) && tools.modules.includes(file) ? "tool" : "file", id, text, rel(file), bytes),
      );
  };
  for (const m of tools.modules) add(m, rel(m), `custom tool module ${rel(m)}`);
  for (const f of tools.beside) add(f, rel(f), `file beside the tool modules ${rel(f)}`);
  for (const [f, id] of plugins)
    add(f, `${id}/${follow.shown(f)}`, `file ${follow.shown(f)} of plugin ${id}`);
  for (const [file, why] of follow.files) add(file, rel(file), `file ${follow.shown(file)} (${why})`);
  for (const n of follow.notFollowed)
    out.push(
      item(
        "unfollowed",
        `${n.where} ${n.what}`,
        `not followed: ${n.what} — ${n.why}  — ${n.where}`,
        n.where,
        n.why,
      ),
    );
  return out;
}

function read(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}
