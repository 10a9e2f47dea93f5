import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { HOOK_EVENTS } from "../definitions/hook-events.js";
import { type JsonFile, readJsonFile } from "../definitions/json-file.js";
import { MCP_JSON, PROJECT_SETTINGS } from "../definitions/project-inputs.js";
import type { Definition, Plugin } from "../definitions/types.js";
import type { Inventory } from "../trust/inventory/inventory.js";

/**
 * What a run of a project depends on beyond its lists, read as text (nothing is run): the code it
 * runs (hooks, MCP servers, and every file of code of the project's inventory, with what the
 * inventory could not follow), and the settings that loosen it (env, working folders, permission
 * mode, the sandbox, where the key is sent). `audit --diff` compares these one by one, because none
 * of them shows in what a list allows.
 */

export type CodeInputKind =
  | "hook"
  | "code-file"
  | "not-followed"
  | "disable-all-hooks"
  | "mcp-server"
  | "settings-env"
  | "additional-directory"
  | "permission-mode"
  | "sandbox"
  | "base-url"
  | "plugin";

export interface CodeInput {
  readonly kind: CodeInputKind;
  /** What it is, the same on both sides of a comparison (`PreToolUse Bash` in a file, an env key, …). */
  readonly key: string;
  /** What is compared: the command, a digest, a value. */
  readonly value: string;
  /** Absolute, in the folder read. */
  readonly file: string;
  readonly line: number;
  /** A line a reader understands: `PreToolUse hook (Bash): ./guard.sh`. */
  readonly text: string;
}

const isRecord = (x: unknown): x is Record<string, unknown> =>
  typeof x === "object" && x !== null && !Array.isArray(x);

/**
 * The code inputs of the project laid out in `dir` (the working tree, or a revision's copy), with
 * its loaded `definitions` and its `inventory`. Contract: never throws; a file that cannot be read
 * gives nothing.
 */
export function codeInputs(
  dir: string,
  definitions: readonly Definition[],
  plugins: readonly Plugin[],
  inventory: Inventory,
): CodeInput[] {
  return [
    ...plugins.map((p) => pluginInput(p, dir)),
    ...PROJECT_SETTINGS.flatMap((f) => settingsInputs(path.join(dir, f))),
    ...mcpJsonInputs(path.join(dir, MCP_JSON)),
    ...definitions.flatMap(definitionInputs),
    ...inventoryInputs(inventory),
  ];
}

/**
 * Every file of code of the inventory (a hook's script and what it sources, an MCP server's program
 * and what it imports, a tool module, a package script's package.json, a plugin's files), by
 * digest, and each thing it could not follow. Git's own files are left out: no revision holds them.
 */
function inventoryInputs(inventory: Inventory): CodeInput[] {
  return inventory.items.flatMap((i) =>
    i.kind === "file" || i.kind === "tool" || i.kind === "unfollowed"
      ? [
          {
            kind: i.kind === "unfollowed" ? ("not-followed" as const) : ("code-file" as const),
            key: i.id,
            value: i.hash,
            // An unfollowed item's file is where it is: `hook … — .claude/settings.json`, `lib/x.mjs`.
            file: path.resolve(inventory.dir, i.file.split(" — ").pop() ?? i.file),
            line: 1,
            text: i.text,
          },
        ]
      : [],
  );
}

/**
 * An enabled plugin: its commands, skills, agents, hooks and servers all come with it, so enabling
 * one (or a new version of it) is a gain, whatever its entries' lists show.
 */
function pluginInput(p: Plugin, dir: string): CodeInput {
  // Its folder and the project's are put back as variables: a revision's copy lives elsewhere.
  // A hook's folder and variables are where it was read from and whose home it has, not what it runs.
  const hooks = Object.entries(p.hooks ?? {}).map(([event, list]) => [
    event,
    (list ?? []).map(({ cwd: _cwd, env: _env, origin: _origin, ...h }) => h),
  ]);
  const text = JSON.stringify([p.version, hooks, p.servers])
    .split(p.root)
    .join("${CLAUDE_PLUGIN_ROOT}")
    .split(dir)
    .join("${CLAUDE_PROJECT_DIR}");
  const value = createHash("sha256").update(text).digest("hex");
  return {
    kind: "plugin",
    key: p.id,
    value,
    file: path.join(p.root, ".claude-plugin/plugin.json"),
    line: 1,
    text: `plugin ${p.id} ${p.version} enabled (${p.scope === "dir" ? "--plugin-dir" : `${p.scope} settings`})`,
  };
}

function settingsInputs(file: string): CodeInput[] {
  const read = readJsonFile(file);
  if (read.kind !== "ok" || !isRecord(read.json.value)) return [];
  const json = read.json;
  const v = json.value as Record<string, unknown>;
  const out: CodeInput[] = [];
  const add = (kind: CodeInputKind, key: string, value: string, at: (string | number)[], text: string) =>
    out.push({ kind, key, value, file, line: json.locate(at).line, text });
  if (isRecord(v.env))
    for (const [k, x] of Object.entries(v.env))
      add("settings-env", k, JSON.stringify(x), ["env", k], `settings env ${k}`);
  const perms = isRecord(v.permissions) ? v.permissions : {};
  if (Array.isArray(perms.additionalDirectories))
    perms.additionalDirectories.forEach((d, i) => {
      add(
        "additional-directory",
        String(d),
        "",
        ["permissions", "additionalDirectories", i],
        `additionalDirectories ${JSON.stringify(d)}`,
      );
    });
  if (typeof perms.defaultMode === "string")
    add(
      "permission-mode",
      "defaultMode",
      perms.defaultMode,
      ["permissions", "defaultMode"],
      `defaultMode ${perms.defaultMode}`,
    );
  if (v.disableAllHooks === true)
    add(
      "disable-all-hooks",
      "disableAllHooks",
      "true",
      ["disableAllHooks"],
      "disableAllHooks: true (the settings' hooks do not run)",
    );
  if ("sandbox" in v)
    add("sandbox", "settings sandbox", JSON.stringify(v.sandbox), ["sandbox"], "settings sandbox");
  out.push(...settingsHooks(file, json, v.hooks));
  return out;
}

/** `hooks: { PreToolUse: [{ matcher, hooks: [{ type, command }] }] }`, each command with its line. */
function settingsHooks(file: string, json: JsonFile, hooks: unknown): CodeInput[] {
  if (!isRecord(hooks)) return [];
  const out: CodeInput[] = [];
  for (const [event, list] of Object.entries(hooks)) {
    if (!Array.isArray(list)) continue;
    list.forEach((item, i) => {
      if (!isRecord(item)) return;
      const matcher = typeof item.matcher === "string" ? item.matcher : "*";
      const inner = Array.isArray(item.hooks) ? item.hooks : [item];
      inner.forEach((h, j) => {
        if (!isRecord(h)) return;
        const at = Array.isArray(item.hooks)
          ? ["hooks", event, i, "hooks", j, "command"]
          : ["hooks", event, i, "command"];
        out.push(hookInput(file, json.locate(at).line, event, matcher, h));
      });
    });
  }
  return out;
}

function hookInput(
  file: string,
  line: number,
  event: string,
  matcher: string,
  h: Record<string, unknown>,
): CodeInput {
  const command = JSON.stringify(h.command ?? h);
  return {
    kind: "hook",
    key: `${event} ${matcher} ${command}`,
    value: JSON.stringify(h),
    file,
    line,
    text: `${event} hook (${matcher}): ${typeof h.command === "string" ? h.command : command}`,
  };
}

function mcpJsonInputs(file: string): CodeInput[] {
  const read = readJsonFile(file);
  if (read.kind !== "ok" || !isRecord(read.json.value)) return [];
  const servers = (read.json.value as Record<string, unknown>).mcpServers;
  if (!isRecord(servers)) return [];
  const json = read.json;
  return Object.entries(servers).map(([name, spec]) => ({
    kind: "mcp-server" as const,
    key: name,
    value: JSON.stringify(spec),
    file,
    line: json.locate(["mcpServers", name]).line,
    text: `MCP server ${name}: ${serverLine(spec)}`,
  }));
}

/** `npx -y server --flag (env: TOKEN)` or the url. */
function serverLine(spec: unknown): string {
  if (!isRecord(spec)) return JSON.stringify(spec);
  const words = [spec.command, ...(Array.isArray(spec.args) ? spec.args : [])].filter((w) => w !== undefined);
  const env = isRecord(spec.env) ? ` (env: ${Object.keys(spec.env).join(", ")})` : "";
  return `${typeof spec.url === "string" ? spec.url : words.join(" ")}${env}`;
}

/** A definition's hooks, inline MCP servers, sandbox and `baseUrl`, each at its line in the file. */
function definitionInputs(def: Definition): CodeInput[] {
  let text = "";
  try {
    text = readFileSync(def.file, "utf8");
  } catch {
    // Loaded a moment ago; gone now: lines fall back to 1.
  }
  const lineOf = (needle: string) => {
    const i = needle === "" ? -1 : text.indexOf(needle);
    return i === -1 ? 1 : text.slice(0, i).split("\n").length;
  };
  const out: CodeInput[] = [];
  const own = (_kind: CodeInputKind, key: string) => `${def.surface}:${def.name} ${key}`;
  const hooks = "hooks" in def ? def.hooks : undefined;
  for (const event of HOOK_EVENTS)
    for (const h of hooks?.[event] ?? [])
      out.push({
        ...hookInput(def.file, lineOf(h.command), event, h.matcher, {
          command: h.command,
          ...(h.timeout !== undefined && { timeout: h.timeout }),
        }),
        key: own("hook", `${event} ${h.matcher} ${JSON.stringify(h.command)}`),
      });
  const servers = def.frontmatter.mcpServers;
  if (Array.isArray(servers) || isRecord(servers))
    for (const [i, s] of Object.entries(servers)) {
      const name =
        isRecord(s) && typeof s.name === "string" ? s.name : Array.isArray(servers) ? String(s) : i;
      out.push({
        kind: "mcp-server",
        key: own("mcp-server", name),
        value: JSON.stringify(s),
        file: def.file,
        line: lineOf(name),
        text: `MCP server ${name} (inline): ${serverLine(s)}`,
      });
    }
  if (def.sandbox)
    out.push({
      kind: "sandbox",
      key: own("sandbox", ""),
      value: JSON.stringify(def.sandbox),
      file: def.file,
      line: lineOf("sandbox"),
      text: `sandbox of ${def.name}`,
    });
  if (def.surface === "main" && def.baseUrl !== undefined)
    out.push({
      kind: "base-url",
      key: "baseUrl",
      value: def.baseUrl,
      file: def.file,
      line: lineOf("baseUrl"),
      text: `baseUrl ${def.baseUrl} (the API key is sent there)`,
    });
  return out;
}
