import { PROVIDER_SWITCHES } from "../../shared/model-variables.js";
import { HELP_OPTION, type OptionTable, optionsHelp } from "../flags/option-table.js";
import type { CliIo } from "../io.js";

/** `auth`'s options: its parser and its help's Options lines. */
export const AUTH_OPTIONS = {
  json: { type: "boolean", default: false, help: "as JSON, in Claude Code's shape" },
  ...HELP_OPTION,
} as const satisfies OptionTable;

export const AUTH_HELP = `Usage: agentmd auth status [--json]

Says which credential agentmd's model requests would use, read from the environment
as a run reads it: ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, or a cloud provider
(CLAUDE_CODE_USE_BEDROCK, CLAUDE_CODE_USE_VERTEX, CLAUDE_CODE_USE_FOUNDRY). agentmd has no
login of its own. With --json, Claude Code's shape (what claude-agent-acp asks for).

Options:
${optionsHelp(AUTH_OPTIONS, 14)}

Exit status: 0 a credential is set, 1 none is.`;

type Env = Readonly<Record<string, string | undefined>>;

/** What `auth status --json` says, as Claude Code's `claude auth status --json` names it. */
export interface AuthStatus {
  readonly loggedIn: boolean;
  readonly authMethod: "api_key" | "auth_token" | "third_party" | "none";
  readonly apiProvider: "firstParty" | "bedrock" | "vertex" | "foundry";
  readonly apiKeySource?: "ANTHROPIC_API_KEY" | "ANTHROPIC_AUTH_TOKEN";
}

const set = (v: string | undefined) => v !== undefined && v.trim() !== "";
const on = (v: string | undefined) => v !== undefined && /^(?:1|true|yes|on)$/i.test(v.trim());

/** The credential a run would use: a cloud provider's switch first, then the key, then the token. */
export function authStatus(env: Env): AuthStatus {
  const provider = (Object.entries(PROVIDER_SWITCHES) as [AuthStatus["apiProvider"], string][]).find(
    ([, name]) => on(env[name]),
  )?.[0];
  if (provider) return { loggedIn: true, authMethod: "third_party", apiProvider: provider };
  if (set(env.ANTHROPIC_API_KEY))
    return {
      loggedIn: true,
      authMethod: "api_key",
      apiProvider: "firstParty",
      apiKeySource: "ANTHROPIC_API_KEY",
    };
  if (set(env.ANTHROPIC_AUTH_TOKEN))
    return {
      loggedIn: true,
      authMethod: "auth_token",
      apiProvider: "firstParty",
      apiKeySource: "ANTHROPIC_AUTH_TOKEN",
    };
  return { loggedIn: false, authMethod: "none", apiProvider: "firstParty" };
}

/** `agentmd auth status`: the status on stdout (JSON with --json); exit 1 when no credential is set. */
export function runAuthStatus(options: { json: boolean }, io: CliIo): number {
  const status = authStatus(io.env);
  if (options.json) io.stdout.write(`${JSON.stringify(status, null, 2)}\n`);
  else io.stdout.write(`${describe(status)}\n`);
  return status.loggedIn ? 0 : 1;
}

function describe(s: AuthStatus): string {
  if (s.authMethod === "third_party") return `Claude on ${s.apiProvider}, with that provider's credentials`;
  if (s.apiKeySource) return `the Anthropic API, with ${s.apiKeySource}`;
  return "no credential: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN, or a cloud provider's variables)";
}
