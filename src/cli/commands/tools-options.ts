import { HELP_OPTION, type OptionTable, optionsHelp } from "../flags/option-table.js";
import { PERMISSION_FLAGS } from "../flags/permission-flags.js";

const AS_A_RUN = "as a run given it (see agentmd run --help)";

/** `tools`' options: its parser and its help's option lines. */
export const TOOLS_OPTIONS = {
  chain: {
    type: "string",
    default: "main",
    value: "HOPS",
    help: [
      "comma-separated hops: main, agent:NAME, skill:NAME, command:NAME",
      "(default: main), e.g. --chain main,agent:reviewer,skill:pdf-tools",
    ],
  },
  try: {
    type: "string",
    value: "TOOL",
    help: [
      "judge one call of TOOL with the JSON input that follows, e.g.",
      '--try Bash \'{"command":"git status"}\'',
    ],
  },
  sandbox: { type: "boolean", default: false, help: "show the sandbox a run with --sandbox would have" },
  mcp: {
    type: "boolean",
    default: false,
    help: [
      "start the MCP servers the chain could reach to list their tools",
      "(then stop them; refused in a folder that is not trusted); without",
      "it no server is started and MCP tools are known by the names the",
      "lists write",
    ],
  },
  json: { type: "boolean", default: false, help: "machine-readable output" },
  "permission-mode": { ...PERMISSION_FLAGS["permission-mode"], help: AS_A_RUN },
  allowedTools: { ...PERMISSION_FLAGS.allowedTools, help: [AS_A_RUN, "also --allowed-tools"] },
  "allowed-tools": PERMISSION_FLAGS["allowed-tools"],
  disallowedTools: { ...PERMISSION_FLAGS.disallowedTools, help: [AS_A_RUN, "also --disallowed-tools"] },
  "disallowed-tools": PERMISSION_FLAGS["disallowed-tools"],
  ...HELP_OPTION,
} as const satisfies OptionTable;

export const TOOLS_HELP = `Usage: agentmd tools [--chain HOPS] [--json]
       agentmd tools [--chain HOPS] --try TOOL 'JSON_INPUT'

Shows what a run at the end of a chain of hops may do: each tool offered to the
model, its effective patterns and denies with the file and line each came from,
and the tools removed along the way with the hop that removed them.

${optionsHelp(TOOLS_OPTIONS, 16)}

The settings of the project (.claude/settings.json, .claude/settings.local.json,
~/.claude/settings.json) apply as they do to a run: their deny rules join every
hop, and their allow and ask rules decide which calls need a user's approval.

Nothing of the project runs: no tool module is imported (a custom tool is known
by the name its source writes), no hook runs, the settings' env is not applied,
and no MCP server starts unless --mcp asks for it.

Exit status: 0 (and 0 when --try is allowed), 2 when no tool survives the chain or
on bad usage, 3 when --try is denied, 4 when --try needs a user's approval, 1 when
the chain or the settings cannot be used.

Example:
  agentmd tools --chain main,agent:reviewer --try Bash '{"command":"git push"}'`;
