import { homedir } from "node:os";
import path from "node:path";
import { findProjectRoot, userClaudeDir } from "../../definitions/discover.js";
import type { MarketplaceSource } from "../../definitions/plugin-marketplaces.js";
import { marketplaceSources } from "../../definitions/plugins.js";
import {
  addMarketplace,
  type InstallScope,
  installPlugin,
  type PluginPlaces,
  pluginsDirOf,
} from "../../invocation/plugin-install.js";
import { type ListedPlugin, listPlugins } from "../../invocation/plugin-list.js";
import { switchPlugin, uninstallPlugin } from "../../invocation/plugin-switch.js";
import { ConfigError } from "../../shared/errors.js";
import { fileSystemError } from "../../shared/write-whole.js";
import { trustState } from "../../trust/trust-state.js";
import { HELP_OPTION, type OptionTable, optionsHelp } from "../flags/option-table.js";
import { parseFlags } from "../flags/parse-flags.js";
import { UsageError } from "../flags/usage-error.js";
import type { CliIo } from "../io.js";
import { printable } from "../terminal/printable.js";
import { trustHome } from "./project-trust.js";

/** `plugin`'s options: its parser and its help's Options lines. */
export const PLUGIN_OPTIONS = {
  scope: {
    type: "string",
    short: "s",
    default: "user",
    value: "SCOPE",
    help: [
      "user (~/.claude/settings.json, the default), project or local: the",
      "settings install, uninstall, enable and disable write (see above)",
    ],
  },
  json: { type: "boolean", default: false, help: "list: machine-readable output" },
  ...HELP_OPTION,
} as const satisfies OptionTable;

export const PLUGIN_HELP = `Usage: agentmd plugin install NAME@MARKETPLACE [--scope user|project|local]
       agentmd plugin uninstall NAME@MARKETPLACE [--scope user|project|local]
       agentmd plugin enable NAME@MARKETPLACE [--scope user|project|local]
       agentmd plugin disable NAME@MARKETPLACE [--scope user|project|local]
       agentmd plugin list [--json]
       agentmd plugin marketplace add DIR

Claude Code plugins (a folder with .claude-plugin/plugin.json): their commands and skills run as
/PLUGIN:NAME, their agents as PLUGIN:NAME, their MCP tools as mcp__plugin_PLUGIN_SERVER__TOOL, and
their hooks guard calls — always within agent.md's and the settings' lists. See docs/plugins.md.

  install    copy the plugin from a known marketplace to ~/.claude/plugins/cache/ and enable it in
             the settings of --scope: user (~/.claude/settings.json, the default), project
             (.claude/settings.json) or local (.claude/settings.local.json); says which marketplace
             it came from. A marketplace only this project declares installs at project or local
             scope, never as your own
  uninstall  remove the install of --scope, its enabledPlugins key and (when nothing else uses it)
             its cache folder
  enable     set enabledPlugins["NAME@MARKETPLACE"] to true in the settings of --scope
  disable    set it to false
  list       every plugin a run here would have, and the installed ones it would not: version,
             enabled, where it comes from (install or marketplace, yours or the project's)
  marketplace add DIR   make the marketplace in DIR (.claude-plugin/marketplace.json) yours

Options:
${optionsHelp(PLUGIN_OPTIONS, 21)}`;

const SCOPES: readonly InstallScope[] = ["user", "project", "local"];
const VERBS = "install, uninstall, enable, disable, list, marketplace add";

/** Runs `agentmd plugin …`; returns the exit code. */
export function runPluginCommand(args: readonly string[], io: CliIo): number {
  const { values, positionals } = parseFlags(args, PLUGIN_OPTIONS);
  if (values.help || positionals.length === 0) {
    io.stdout.write(`${PLUGIN_HELP}\n`);
    return values.help ? 0 : 2;
  }
  const home = io.env.HOME ?? homedir();
  const at: PluginPlaces = {
    projectDir: findProjectRoot(io.cwd, home),
    userDir: userClaudeDir(home) ?? path.join(home, ".claude"),
  };
  const [verb, ...rest] = positionals;
  const scope = values.scope as InstallScope;
  const one = () => {
    if (rest.length !== 1)
      throw new UsageError(`usage: agentmd plugin ${verb} NAME@MARKETPLACE [--scope user|project|local]`);
    if (!SCOPES.includes(scope))
      throw new UsageError(`--scope must be user, project or local, not '${scope}'`);
    return rest[0] as string;
  };
  const say = (line: string) => io.stdout.write(`${printable(line)}\n`);
  try {
    switch (verb) {
      case "install":
      case "i": {
        const done = installPlugin(at, one(), scope);
        say(`installed ${done.id} ${done.version} (scope ${done.scope}) in ${done.installPath}`);
        say(`  from marketplace '${done.from.name}' at ${done.from.dir}, ${declared(done.from, at)}`);
        say(`  enabled in ${done.settingsFile}`);
        return 0;
      }
      case "uninstall":
      case "remove": {
        const done = uninstallPlugin(at, one(), scope);
        say(`uninstalled ${done.id} (scope ${done.scope})`);
        for (const p of done.removed) say(`  removed ${p}`);
        if (done.settingsFile) say(`  removed from enabledPlugins in ${done.settingsFile}`);
        return 0;
      }
      case "enable":
      case "disable": {
        const id = one();
        const file = switchPlugin(at, id, scope, verb === "enable");
        say(`${verb}d ${id} in ${file}`);
        const now = listPlugins(at).find((p) => p.id === id);
        if (now && now.enabled !== (verb === "enable"))
          say(`  but ${now.enabledIn?.file} (which wins) has it ${now.enabled ? "enabled" : "disabled"}`);
        return 0;
      }
      case "list":
        if (rest.length > 0) throw new UsageError("usage: agentmd plugin list [--json]");
        return list(at, values.json === true, io);
      case "marketplace": {
        const [sub, dir] = rest;
        if (sub !== "add" || dir === undefined || rest.length !== 2)
          throw new UsageError("usage: agentmd plugin marketplace add DIR");
        const name = addMarketplace(at, path.resolve(io.cwd, dir));
        say(`added marketplace ${name}`);
        return 0;
      }
      default:
        throw new UsageError(`unknown plugin command '${verb}' (${VERBS})`);
    }
  } catch (e) {
    // A plugin's folder copied onto a full disk is said as a settings file written onto one is.
    const clear = e instanceof ConfigError ? e : fileSystemError(e);
    if (!clear) throw e;
    io.stderr.write(`agentmd: ${printable(clear.message)}\n`);
    return 1;
  }
}

const declared = (m: MarketplaceSource, at: PluginPlaces) =>
  m.owner === "user" ? `yours (${m.file})` : `declared by the project at ${at.projectDir} (${m.file})`;

/** `plugin list`: the plugins, each with where it comes from; a marketplace clash is a warning on stderr. */
function list(at: PluginPlaces, json: boolean, io: CliIo): number {
  const { diagnostics } = marketplaceSources(at.projectDir, at.userDir, pluginsDirOf(at));
  for (const d of diagnostics) io.stderr.write(`agentmd: warning: ${printable(`${d.file}: ${d.message}`)}\n`);
  const plugins = listPlugins(at);
  const untrusted =
    plugins.some((p) => p.owner === "project" && p.inRun) &&
    trustState(at.projectDir, trustHome(io)).kind === "untrusted";
  const shown = plugins.map((p) => ({
    ...p,
    ...(p.owner === "project" && p.inRun && { waitsForTrust: untrusted }),
  }));
  if (json) io.stdout.write(`${JSON.stringify(shown, null, 2)}\n`);
  else if (shown.length === 0) io.stdout.write("no plugins installed or enabled\n");
  else for (const p of shown) io.stdout.write(`${printable(line(p, untrusted))}\n`);
  return 0;
}

function line(p: ListedPlugin, untrusted: boolean): string {
  const state = p.enabled
    ? `enabled (${p.enabledIn?.scope} settings)`
    : p.enabledIn
      ? `disabled (${p.enabledIn.scope} settings)`
      : "not enabled";
  const from = p.marketplace
    ? `${p.source} '${p.marketplace.name}' ${p.path}`
    : `${p.source} ${p.path ?? ""}`;
  const code =
    p.owner === "user"
      ? "your code"
      : untrusted && p.inRun
        ? "the project's code: runs once the folder is trusted (agentmd trust)"
        : "the project's code";
  const tail = p.problem ? `; not used: ${p.problem}` : p.inRun ? `; ${code}` : "";
  return `${p.id}  ${p.version || "-"}  ${state}  from ${from.trim()}${tail}`;
}
