import { homedir } from "node:os";
import path from "node:path";
import { didYouMean } from "../shared/did-you-mean.js";
import { checkHooks } from "./check-hooks.js";
import { DiagnosticSink } from "./diagnostics.js";
import { HOOK_EVENTS } from "./hook-events.js";
import { type JsonFile, parseJsonText, readJsonFile } from "./json-file.js";
import { listWord } from "./list-words.js";
import { normaliseHooks } from "./load-definition.js";
import { checkPluginSettings } from "./marketplace.js";
import { checkEntry } from "./parse-tool-list.js";
import { PERMISSION_MODES, type PermissionMode } from "./permission-modes.js";
import { settingsFiles, USER_SETTINGS } from "./project-inputs.js";
import { type CredentialCommands, commandsOf } from "./settings-credentials.js";
import { checkSettingsEnv } from "./settings-env.js";
import { type HooksSwitch, joinedSwitch } from "./settings-hooks.js";
import {
  FOREIGN_POLICY_KEYS,
  IGNORED_SETTINGS_KEYS,
  nearTopLevelKey,
  PERMISSION_KEYS,
  SETTINGS_KEYS,
} from "./settings-keys.js";
import { readSettingsModel } from "./settings-model.js";
import type { ToolNames } from "./tool-names.js";
import type { Diagnostic, HooksSetting, ToolEntry } from "./types.js";

export { PERMISSION_MODES, type PermissionMode } from "./permission-modes.js";
export { CREDENTIAL_COMMANDS, type CredentialCommands } from "./settings-credentials.js";
export { IGNORED_SETTINGS_KEYS, PERMISSION_KEYS, SETTINGS_KEYS } from "./settings-keys.js";

/** `.claude/settings.json` and its kin, merged; `disableAllHooks` says whose file turned hooks off. */
export interface ClaudeSettings extends HooksSwitch {
  /** Calls pre-approved: they run without asking (never beyond agent.md's list). */
  readonly allow: readonly ToolEntry[];
  /** Calls denied at every hop. */
  readonly deny: readonly ToolEntry[];
  /** Calls that need a user's approval each time (unless allowed for the session). */
  readonly ask: readonly ToolEntry[];
  readonly defaultMode?: PermissionMode;
  /** Folders beside the project that count as working folders (absolute). */
  readonly additionalDirectories: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly hooks?: HooksSetting;
  /** `.mcp.json` servers by name: only these start (`enabledMcpjsonServers`), never these (`disabled…`). */
  readonly enabledMcpjsonServers?: readonly string[];
  readonly disabledMcpjsonServers: readonly string[];
  /** `permissions.disableBypassPermissionsMode: "disable"`: bypassPermissions cannot be turned on. */
  readonly bypassDisabled?: boolean;
  /** `model`: the runs' model where agent.md names none (the most specific file's wins). */
  readonly model?: string;
  /**
   * The credential commands (Claude Code's keys), the most specific file's winning: a project's are
   * the project's code, taken only when its folder is trusted.
   */
  readonly credentialCommands?: CredentialCommands;
  /** The files that were read, most general first. */
  readonly files: readonly string[];
}

export const NO_SETTINGS: ClaudeSettings = {
  allow: [],
  deny: [],
  ask: [],
  additionalDirectories: [],
  env: {},
  disabledMcpjsonServers: [],
  files: [],
};

/** Which `.mcp.json` servers the settings let start, as project-servers takes it. */
export function mcpJsonFilter(s: ClaudeSettings): {
  readonly enabled?: readonly string[];
  readonly disabled: readonly string[];
} {
  return {
    ...(s.enabledMcpjsonServers && { enabled: s.enabledMcpjsonServers }),
    disabled: s.disabledMcpjsonServers,
  };
}

export interface SettingsOptions {
  /**
   * The project's code is not run (its folder is not trusted): the project files' `env` is not
   * taken and their hooks are these instead (the user's own file stays as it is).
   */
  readonly withhold?: (hooks: HooksSetting) => HooksSetting;
  /**
   * Settings given by the caller (Claude Code's `--settings`), merged after every file: `source`
   * names them in diagnostics. They bind as a project file does (their deny rules add to the rest).
   */
  readonly extra?: { readonly source: string; readonly json: unknown };
}

/**
 * The settings of a project: `~/.claude/settings.json` (the user's), `.claude/settings.json` (the
 * project's) and `.claude/settings.local.json` (the user's for this project), in that order of
 * precedence: rules of all three apply; the most specific file's `defaultMode` and `env` values
 * win. A file that cannot be read as settings is an error diagnostic at its line: a run must not
 * go on without the rules it holds. Contract: never throws.
 */
export function loadSettings(
  root: string,
  userDir: string | undefined,
  known?: ToolNames,
  options: SettingsOptions = {},
): { readonly settings: ClaudeSettings; readonly diagnostics: readonly Diagnostic[] } {
  const files = settingsFiles(root, userDir);
  const diagnostics: Diagnostic[] = [];
  let merged: ClaudeSettings = NO_SETTINGS;
  const seen = new Set<string>();
  for (const file of files) {
    if (seen.has(file)) continue;
    seen.add(file);
    const read = readJsonFile(file);
    if (read.kind === "missing") continue;
    const sink = new DiagnosticSink(file, undefined);
    if (read.kind === "bad") {
      sink.add("error", "settings-json", `${path.basename(file)} ${read.message}`, read.line, read.column);
    } else {
      const base = userDir && file === path.join(userDir, USER_SETTINGS) ? "home" : "project";
      const one = checkSettings(
        read.json,
        sink,
        root,
        base,
        userDir ? path.dirname(userDir) : homedir(),
        known,
      );
      const withheld =
        options.withhold && base === "project"
          ? {
              env: {},
              credentialCommands: undefined,
              ...(one.hooks && { hooks: options.withhold(one.hooks) }),
            }
          : {};
      const origin = base === "home" ? "user" : file.endsWith(".local.json") ? "local" : "project";
      const own = one.hooks ? { ...one, hooks: withOrigin(one.hooks, origin) } : one;
      merged = merge(merged, { ...own, ...withheld, files: [file] });
    }
    diagnostics.push(...sink.items);
  }
  if (options.extra) {
    const sink = new DiagnosticSink(options.extra.source, undefined);
    const home = userDir ? path.dirname(userDir) : homedir();
    const read = parseJsonText(JSON.stringify(options.extra.json));
    if (read.kind === "ok") {
      const one = checkSettings(read.json, sink, root, "project", home, known);
      merged = merge(merged, { ...one, files: [options.extra.source] });
    }
    diagnostics.push(...sink.items);
  }
  return { settings: merged, diagnostics };
}

/** Each hook marked with the settings file it came from (`user`, `project`, `local`). */
function withOrigin(hooks: HooksSetting, origin: string): HooksSetting {
  return Object.fromEntries(
    Object.entries(hooks).map(([e, list]) => [e, (list ?? []).map((h) => ({ ...h, origin }))]),
  );
}

function merge(a: ClaudeSettings, b: ClaudeSettings): ClaudeSettings {
  const hooks =
    a.hooks || b.hooks
      ? Object.fromEntries(HOOK_EVENTS.map((e) => [e, [...(a.hooks?.[e] ?? []), ...(b.hooks?.[e] ?? [])]]))
      : undefined;
  const mode = b.defaultMode ?? a.defaultMode;
  const model = b.model ?? a.model;
  const enabled = b.enabledMcpjsonServers ?? a.enabledMcpjsonServers;
  return {
    ...joinedSwitch(a, b),
    ...((a.bypassDisabled || b.bypassDisabled) && { bypassDisabled: true }),
    ...(enabled && { enabledMcpjsonServers: enabled }),
    disabledMcpjsonServers: [...a.disabledMcpjsonServers, ...b.disabledMcpjsonServers],
    allow: [...a.allow, ...b.allow],
    deny: [...a.deny, ...b.deny],
    ask: [...a.ask, ...b.ask],
    ...(mode && { defaultMode: mode }),
    ...(model && { model }),
    additionalDirectories: [...a.additionalDirectories, ...b.additionalDirectories],
    env: { ...a.env, ...b.env },
    ...(hooks && { hooks }),
    ...((a.credentialCommands || b.credentialCommands) && {
      credentialCommands: { ...a.credentialCommands, ...b.credentialCommands },
    }),
    files: [...a.files, ...b.files],
  };
}

const isRecord = (x: unknown): x is Record<string, unknown> =>
  typeof x === "object" && x !== null && !Array.isArray(x);

/** One settings file, checked key by key. */
function checkSettings(
  json: JsonFile,
  sink: DiagnosticSink,
  root: string,
  base: "project" | "home",
  home: string,
  known?: ToolNames,
): Omit<ClaudeSettings, "files"> {
  const at = (keys: (string | number)[]) => sink.at(json.locate(keys));
  const atKey = (keys: (string | number)[]) => sink.at(json.locateKey(keys));
  const value = json.value;
  if (!isRecord(value)) {
    sink.add("error", "settings-type", "settings must be a JSON object");
    return NO_SETTINGS;
  }
  for (const key of Object.keys(value)) {
    if (SETTINGS_KEYS.includes(key) || IGNORED_SETTINGS_KEYS.has(key)) continue;
    if (FOREIGN_POLICY_KEYS.has(key)) {
      atKey([key])(
        "warning",
        "settings-key",
        `'${key}' is a Claude Code setting agentmd does not act on; it is ignored`,
      );
      continue;
    }
    const near = nearTopLevelKey(key);
    atKey([key])(
      near ? "error" : "warning",
      "settings-key",
      near
        ? `unknown key '${key}'; did you mean '${near}'? Settings that are not read would not apply, so this file is not used`
        : `unknown key '${key}' is ignored`,
    );
  }
  const permissions = value.permissions;
  const perms = isRecord(permissions) ? permissions : {};
  if (permissions !== undefined && !isRecord(permissions))
    at(["permissions"])("error", "settings-type", "'permissions' must be an object");
  for (const key of Object.keys(perms)) {
    if (PERMISSION_KEYS.includes(key)) continue;
    const near = nearPermissionKey(key);
    atKey(["permissions", key])(
      near ? "error" : "warning",
      "settings-key",
      near
        ? `unknown key 'permissions.${key}'; did you mean ${near}? A misspelled rule list would run unrestricted, so this file is not used`
        : `unknown key 'permissions.${key}' is ignored`,
    );
  }
  const rules = (name: "allow" | "deny" | "ask") =>
    entries(perms[name], ["permissions", name], json, sink, known).map((e) => inOurGrammar(e, base));
  const mode = perms.defaultMode;
  if (mode !== undefined && !(PERMISSION_MODES as readonly unknown[]).includes(mode))
    at(["permissions", "defaultMode"])(
      "error",
      "settings-value",
      `'permissions.defaultMode' must be one of ${PERMISSION_MODES.join(", ")}, got ${JSON.stringify(mode)}`,
    );
  // `~/` is home; a relative folder is relative to where the file's rules are: the project, or home.
  const dirs = strings(perms.additionalDirectories, ["permissions", "additionalDirectories"], json, sink).map(
    (d) =>
      d === "~" || d.startsWith("~/")
        ? path.join(home, d.slice(1))
        : path.resolve(base === "home" ? home : root, d),
  );
  const env = checkSettingsEnv(value.env, json, sink, { base, root });
  checkPluginSettings(value, json, sink);
  const hooksOk = checkHooks(
    value.hooks,
    {
      locate: (keys) => json.locate(["hooks", ...keys]),
      locateKey: (keys) => json.locateKey(["hooks", ...keys]),
    },
    sink,
  );
  const hooks = hooksOk ? normaliseHooks(value.hooks) : undefined;
  const disableAllHooks = value.disableAllHooks;
  if (disableAllHooks !== undefined && typeof disableAllHooks !== "boolean")
    at(["disableAllHooks"])("error", "settings-type", "'disableAllHooks' must be true or false");
  const bypass = perms.disableBypassPermissionsMode;
  if (bypass !== undefined && bypass !== "disable")
    at(["permissions", "disableBypassPermissionsMode"])(
      "error",
      "settings-value",
      `'permissions.disableBypassPermissionsMode' can only be "disable", got ${JSON.stringify(bypass)}`,
    );
  const credentialCommands = commandsOf(value, json, sink, base === "home" ? home : root);
  const mcpList = (key: "enabledMcpjsonServers" | "disabledMcpjsonServers") =>
    value[key] === undefined ? undefined : strings(value[key], [key], json, sink);
  const enabled = mcpList("enabledMcpjsonServers");
  const model = readSettingsModel(value.model, at(["model"]));
  return {
    ...(model && { model }),
    ...(disableAllHooks === true && { disableAllHooks: base === "home" ? "user" : "project" }),
    ...(bypass === "disable" && { bypassDisabled: true }),
    ...(enabled && { enabledMcpjsonServers: enabled }),
    disabledMcpjsonServers: mcpList("disabledMcpjsonServers") ?? [],
    allow: rules("allow"),
    deny: rules("deny"),
    ask: rules("ask"),
    ...(typeof mode === "string" &&
      (PERMISSION_MODES as readonly string[]).includes(mode) && { defaultMode: mode as PermissionMode }),
    additionalDirectories: dirs,
    env,
    ...(hooks && { hooks }),
    ...(credentialCommands && { credentialCommands }),
  };
}

/** The `permissions` key an unknown one was meant to be, quoted (`'deny'`); undefined when none. */
function nearPermissionKey(key: string): string | undefined {
  const near =
    didYouMean(key, ["allow", "deny", "ask"]) ??
    (/^(allow|deny|ask)/i.test(key) ? key.replace(/^(allow|deny|ask).*/i, "$1").toLowerCase() : undefined);
  if (near) return `'${near}'`;
  const word = listWord(key);
  if (word === "deny" || word === "allow") return `'${word}'`;
  if (word === "tools" || word === "permissions") return "'allow' or 'deny'";
  return undefined;
}

function strings(v: unknown, keys: string[], json: JsonFile, sink: DiagnosticSink): string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) {
    sink.at(json.locate(keys))("error", "settings-type", `'${keys.join(".")}' must be a list of strings`);
    return [];
  }
  return v.flatMap((item, i) => {
    if (typeof item === "string") return [item];
    sink.at(json.locate([...keys, i]))(
      "error",
      "settings-type",
      `'${keys.join(".")}' item ${i + 1} must be a string`,
    );
    return [];
  });
}

/** A rule list: each string one entry, `Tool` or `Tool(pattern)`, checked as list entries are. */
function entries(
  v: unknown,
  keys: string[],
  json: JsonFile,
  sink: DiagnosticSink,
  known?: ToolNames,
): ToolEntry[] {
  const out: ToolEntry[] = [];
  strings(v, keys, json, sink).forEach((raw, i) => {
    const pos = json.locate([...keys, i]);
    const entry = checkEntry(raw.trim(), { line: pos.line, column: pos.column + 1 }, sink, known);
    if (entry) out.push(entry);
  });
  return out;
}

/** The tools whose patterns are paths. */
const PATH_TOOLS = new Set("Read Write Edit MultiEdit NotebookEdit NotebookRead Glob Grep LS".split(" "));

/**
 * A settings rule's path pattern, from Claude Code's grammar to agentmd's: there `//x` is the
 * absolute `/x` and `/x` is relative to the settings' folder (the project, or home for the user's
 * file), while in agentmd `/x` is absolute and `x` is relative to the project.
 */
function inOurGrammar(entry: ToolEntry, base: "project" | "home"): ToolEntry {
  const p = entry.pattern;
  if (p === undefined || !PATH_TOOLS.has(entry.name) || !p.startsWith("/")) return entry;
  const pattern = p.startsWith("//") ? p.slice(1) : base === "home" ? `~${p}` : p.slice(1) || ".";
  return { ...entry, pattern };
}
