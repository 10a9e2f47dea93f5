import { statSync } from "node:fs";
import path from "node:path";
import { checkHooks } from "./check-hooks.js";
import { DiagnosticSink } from "./diagnostics.js";
import { type JsonFile, readJsonFile } from "./json-file.js";
import { normaliseHooks } from "./load-definition.js";
import { checkServerConfig, serverNameOf } from "./mcp-servers.js";
import { withPluginRoot } from "./plugin-root.js";
import { folderVersion } from "./plugin-version.js";
import type { Diagnostic, HookEntry, HooksSetting, McpServerConfig, Plugin, PluginServer } from "./types.js";

export type { Plugin, PluginServer } from "./types.js";

/**
 * One Claude Code plugin folder, read: `.claude-plugin/plugin.json` (its name, its version),
 * `hooks/hooks.json` and `.mcp.json`, with `${CLAUDE_PLUGIN_ROOT}` replaced by the folder. Its
 * commands, skills and agents are found by the loader as the project's are (see `discoverProject`).
 */

export const PLUGIN_JSON = ".claude-plugin/plugin.json";
export const PLUGIN_HOOKS = "hooks/hooks.json";
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
/** plugin.json keys agentmd reads, and those it accepts without acting on them. */
const READ_KEYS = new Set(["name", "version", "hooks", "mcpServers"]);
const INFO_KEYS = new Set(
  "description author homepage repository license keywords $schema category tags strict".split(" "),
);

export interface FolderPlace {
  readonly root: string;
  readonly id?: string;
  readonly marketplace?: string;
  /** The marketplace entry's version: plugin.json's wins. */
  readonly version?: string;
  /** The marketplace's folder: where a git repository holding the plugin is looked for up to. */
  readonly top?: string;
  readonly scope: Plugin["scope"];
  readonly enabled: boolean;
  readonly owner: Plugin["owner"];
  /** `~/.claude/plugins`, for the data folder. */
  readonly pluginsDir: string;
  readonly projectDir: string;
}

/**
 * Reads the plugin at `place.root`. A `plugin.json` that is not JSON or has no usable `name`, a
 * hooks file with a misspelled event, and a server that cannot be started are errors at their
 * line: a plugin whose guard cannot be read must not run without it. Contract: never throws.
 */
export function readPluginFolder(place: FolderPlace): { plugin?: Plugin; diagnostics: Diagnostic[] } {
  const root = place.root;
  const manifest = path.join(root, PLUGIN_JSON);
  const sink = new DiagnosticSink(manifest, undefined);
  const read = readJsonFile(manifest);
  if (read.kind === "missing") {
    sink.add("error", "plugin-json", `no ${PLUGIN_JSON} in the plugin folder ${root}`);
    return { diagnostics: sink.items };
  }
  if (read.kind === "bad") {
    sink.add("error", "plugin-json", `plugin.json ${read.message}`, read.line, read.column);
    return { diagnostics: sink.items };
  }
  const value = read.json.value;
  const v = isRecord(value) ? value : {};
  if (!isRecord(value)) sink.add("error", "plugin-json", "plugin.json must be a JSON object");
  const name = v.name;
  const marketplace = place.marketplace;
  if (typeof name !== "string" || !NAME.test(name)) {
    sink.at(read.json.locate(["name"]))(
      "error",
      "plugin-json",
      `plugin.json needs a 'name' (letters, digits, '.', '_' and '-'), got ${JSON.stringify(name)}`,
    );
    return { diagnostics: sink.items };
  }
  for (const key of Object.keys(v))
    if (!READ_KEYS.has(key) && !INFO_KEYS.has(key))
      sink.at(read.json.locateKey([key]))(
        "warning",
        "plugin-json-key",
        `'${key}' in plugin.json is not read by agentmd`,
      );
  const version =
    typeof v.version === "string" ? v.version : (place.version ?? folderVersion(root, place.top));
  const dataDir = path.join(place.pluginsDir, "data", `${name}-${marketplace ?? "inline"}`);
  const hooks = pluginHooks(root, v.hooks, read.json, sink, {
    cwd: place.projectDir,
    origin: `plugin ${name}`,
    env: { CLAUDE_PLUGIN_ROOT: root, CLAUDE_PLUGIN_DATA: dataDir },
  });
  const servers = pluginServers(name, root, v.mcpServers, read.json, sink);
  const plugin: Plugin = {
    name,
    id: place.id ?? `${name}@${marketplace ?? "--plugin-dir"}`,
    root,
    owner: place.owner,
    ...(marketplace !== undefined && { marketplace }),
    version,
    scope: place.scope,
    enabled: place.enabled,
    dataDir,
    ...(hooks.hooks && { hooks: hooks.hooks }),
    servers,
  };
  const diagnostics = [...sink.items, ...hooks.diagnostics, ...servers.diagnostics];
  return { plugin: hooks.hooks === null ? undefined : plugin, diagnostics };
}

/** `hooks/hooks.json`, or the file or hooks plugin.json names; null when they cannot be used. */
function pluginHooks(
  root: string,
  declared: unknown,
  manifest: JsonFile,
  manifestSink: DiagnosticSink,
  runs: Pick<HookEntry, "cwd" | "origin" | "env">,
): { hooks?: HooksSetting | null; diagnostics: Diagnostic[] } {
  const files = [path.join(root, PLUGIN_HOOKS)];
  let inline: HooksSetting | null | undefined;
  if (typeof declared === "string") files.push(path.resolve(root, declared));
  else if (isRecord(declared)) {
    const places = {
      locate: (k: readonly (string | number)[]) => manifest.locate(["hooks", ...k]),
      locateKey: (k: readonly (string | number)[]) => manifest.locateKey(["hooks", ...k]),
    };
    inline = checkHooks(declared, places, manifestSink) ? (normaliseHooks(declared) ?? {}) : null;
  } else if (declared !== undefined)
    manifestSink.at(manifest.locate(["hooks"]))(
      "error",
      "plugin-json",
      "'hooks' in plugin.json is a path or a map of events",
    );
  const diagnostics: Diagnostic[] = [];
  const sets: HooksSetting[] = inline ? [inline] : [];
  let failed = inline === null || manifestSink.hasErrors;
  for (const file of [...new Set(files)]) {
    const read = readJsonFile(file);
    if (read.kind === "missing") {
      if (file !== files[0]) {
        diagnostics.push(at(file, "error", "plugin-hooks", "the hooks file plugin.json names is missing"));
        failed = true;
      }
      continue;
    }
    const sink = new DiagnosticSink(file, undefined);
    if (read.kind === "bad") {
      sink.add("error", "plugin-hooks", `${path.basename(file)} ${read.message}`, read.line, read.column);
    } else {
      const value = read.json.value;
      const hooks = isRecord(value) ? value.hooks : undefined;
      if (!isRecord(value) || !isRecord(hooks))
        sink.add("error", "plugin-hooks", 'a hooks file holds { "hooks": { "PreToolUse": [ … ] } }');
      else {
        const places = {
          locate: (k: readonly (string | number)[]) => read.json.locate(["hooks", ...k]),
          locateKey: (k: readonly (string | number)[]) => read.json.locateKey(["hooks", ...k]),
        };
        if (checkHooks(hooks, places, sink)) sets.push(normaliseHooks(hooks) ?? {});
      }
    }
    if (sink.hasErrors) failed = true;
    diagnostics.push(...sink.items);
  }
  if (failed) return { hooks: null, diagnostics };
  const put = (list: HooksSetting["PreToolUse"]) =>
    (list ?? []).map((h) => ({ ...h, ...runs, command: withPluginRoot(h.command, root) }));
  const merged: HooksSetting = {
    PreToolUse: sets.flatMap((s) => put(s.PreToolUse)),
    PostToolUse: sets.flatMap((s) => put(s.PostToolUse)),
  };
  const any = (merged.PreToolUse?.length ?? 0) + (merged.PostToolUse?.length ?? 0) > 0;
  return { ...(any && { hooks: merged }), diagnostics };
}

/** `.mcp.json` of the plugin (flat, or under `mcpServers`), or the servers plugin.json names. */
function pluginServers(
  plugin: string,
  root: string,
  declared: unknown,
  manifest: JsonFile,
  manifestSink: DiagnosticSink,
): PluginServer[] & { diagnostics: Diagnostic[] } {
  const out: PluginServer[] = [];
  const diagnostics: Diagnostic[] = [];
  const take = (map: Record<string, unknown>, json: JsonFile, sink: DiagnosticSink, under: string[]) => {
    for (const raw of Object.keys(map)) {
      const pos = json.locate([...under, raw]);
      const name = serverNameOf(`plugin:${plugin}:${raw}`);
      const checked = checkServerConfig(map[raw]);
      if (!checked.ok || name === undefined) {
        const p = checked.ok ? pos : json.locate([...under, raw, ...checked.path]);
        sink.at(p)(
          "error",
          "mcp-server",
          `MCP server '${raw}': ${checked.ok ? "bad name" : checked.message}`,
        );
        continue;
      }
      out.push({
        name,
        config: withRootInConfig(checked.config, root),
        origin: sink.pos(pos.line, pos.column),
      });
    }
  };
  const fromFile = (file: string, required: boolean) => {
    const read = readJsonFile(file);
    if (read.kind === "missing") {
      if (required)
        diagnostics.push(at(file, "error", "mcp-json", "the MCP file plugin.json names is missing"));
      return;
    }
    const sink = new DiagnosticSink(file, undefined);
    if (read.kind === "bad")
      sink.add("error", "mcp-json", `${path.basename(file)} ${read.message}`, read.line, read.column);
    else {
      const v = read.json.value;
      if (!isRecord(v)) sink.add("error", "mcp-json", "an MCP file holds a map of server names");
      else if (isRecord(v.mcpServers)) take(v.mcpServers, read.json, sink, ["mcpServers"]);
      else take(v, read.json, sink, []);
    }
    diagnostics.push(...sink.items);
  };
  fromFile(path.join(root, ".mcp.json"), false);
  if (typeof declared === "string") fromFile(path.resolve(root, declared), true);
  else if (isRecord(declared)) take(declared, manifest, manifestSink, ["mcpServers"]);
  return Object.assign(out, { diagnostics });
}

function withRootInConfig(c: McpServerConfig, root: string): McpServerConfig {
  const x = (s: string) => withPluginRoot(s, root);
  const map = (m: Readonly<Record<string, string>> | undefined) =>
    m && Object.fromEntries(Object.entries(m).map(([k, v]) => [k, x(v)]));
  return {
    ...c,
    ...(c.command !== undefined && { command: x(c.command) }),
    ...(c.args && { args: c.args.map(x) }),
    ...(c.env && { env: { ...map(c.env) } }),
    ...(c.cwd !== undefined && { cwd: x(c.cwd) }),
    ...(c.url !== undefined && { url: x(c.url) }),
    ...(c.headers && { headers: { ...map(c.headers) } }),
  };
}

function at(file: string, severity: Diagnostic["severity"], code: string, message: string): Diagnostic {
  return { file, line: 1, column: 1, severity, code, message };
}

export function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

const isRecord = (x: unknown): x is Record<string, unknown> =>
  typeof x === "object" && x !== null && !Array.isArray(x);
