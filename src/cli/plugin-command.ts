import { homedir } from "node:os";
import path from "node:path";
import { findProjectRoot, userClaudeDir } from "../definitions/discover.js";
import {
  addMarketplace,
  type InstallScope,
  installPlugin,
  listPlugins,
  type PluginPlaces,
} from "../invocation/plugin-install.js";
import { ConfigError } from "../shared/errors.js";
import { fileSystemError } from "../shared/write-whole.js";
import type { CliIo } from "./io.js";
import { parseFlags } from "./parse-flags.js";
import { printable } from "./render.js";
import { UsageError } from "./usage-error.js";

export const PLUGIN_HELP = `Usage: agentmd plugin install NAME@MARKETPLACE [--scope user|project|local]
       agentmd plugin list [--json]
       agentmd plugin marketplace add DIR

Claude Code plugins (a folder with .claude-plugin/plugin.json): their commands and skills run as
/PLUGIN:NAME, their agents as PLUGIN:NAME, their MCP tools as mcp__plugin_PLUGIN_SERVER__TOOL, and
their hooks guard calls — always within agent.md's and the settings' lists. See docs/plugins.md.

  install    copy the plugin from a known marketplace to ~/.claude/plugins/cache/ and enable it in
             the settings of --scope: user (~/.claude/settings.json, the default), project
             (.claude/settings.json) or local (.claude/settings.local.json)
  list       the installed plugins, their version, scope and whether they are enabled
  marketplace add DIR   make the marketplace in DIR (.claude-plugin/marketplace.json) known`;

const SCOPES: readonly InstallScope[] = ["user", "project", "local"];

/** Runs `agentmd plugin …`; returns the exit code. */
export function runPluginCommand(args: readonly string[], io: CliIo): number {
  const { values, positionals } = parseFlags(args, {
    scope: { type: "string", short: "s", default: "user" },
    json: { type: "boolean", default: false },
    help: { type: "boolean", short: "h", default: false },
  });
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
  try {
    switch (verb) {
      case "install":
      case "i": {
        if (rest.length !== 1)
          throw new UsageError("usage: agentmd plugin install NAME@MARKETPLACE [--scope …]");
        const scope = values.scope as InstallScope;
        if (!SCOPES.includes(scope))
          throw new UsageError(`--scope must be user, project or local, not '${scope}'`);
        const done = installPlugin(at, rest[0] as string, scope);
        io.stdout.write(
          `installed ${done.id} ${done.version} (scope ${done.scope}) in ${done.installPath}; enabled in ${done.settingsFile}\n`,
        );
        return 0;
      }
      case "list": {
        const list = listPlugins(at);
        if (values.json) io.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
        else if (list.length === 0) io.stdout.write("no plugins installed\n");
        else
          for (const p of list)
            io.stdout.write(`${p.id}  ${p.version}  ${p.scope}  ${p.enabled ? "enabled" : "disabled"}\n`);
        return 0;
      }
      case "marketplace": {
        const [sub, dir] = rest;
        if (sub !== "add" || dir === undefined || rest.length !== 2)
          throw new UsageError("usage: agentmd plugin marketplace add DIR");
        const name = addMarketplace(at, path.resolve(io.cwd, dir));
        io.stdout.write(`added marketplace ${name}\n`);
        return 0;
      }
      default:
        throw new UsageError(`unknown plugin command '${verb}' (install, list, marketplace add)`);
    }
  } catch (e) {
    // A plugin's folder copied onto a full disk is said as a settings file written onto one is.
    const clear = e instanceof ConfigError ? e : fileSystemError(e);
    if (!clear) throw e;
    io.stderr.write(`agentmd: ${printable(clear.message)}\n`);
    return 1;
  }
}
