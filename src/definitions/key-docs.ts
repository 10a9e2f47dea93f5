import {
  DEFAULT_MAX_CONCURRENCY,
  DEFAULT_MAX_DEPTH,
  DEFAULT_MAX_ITERATIONS,
  DEFAULT_MAX_TOKENS,
  DEFAULT_MCP_TIMEOUT_MS,
  DEFAULT_MODEL,
  DEFAULT_TOOL_SEARCH_PERCENT,
  HOOK_TIMEOUT_S,
  MODEL_ALIASES,
} from "../shared/defaults.js";
import type { KeyDoc } from "./key-doc.js";
import { SUBAGENT_KEY_DOCS } from "./subagent-key-docs.js";
import type { Surface } from "./types.js";
import { UNATTENDED_KEY_DOCS } from "./unattended-key-docs.js";

export type { KeyDoc } from "./key-doc.js";

const aliases = Object.entries(MODEL_ALIASES)
  .map(([alias, id]) => `\`${alias}\` is ${id}`)
  .join(", ");

const LIST_FORMS =
  "Entries are `Name` or `Name(pattern)`, as a YAML list or as one string split on commas and/or spaces outside parentheses; `*` alone is every tool (docs/permissions.md says what each pattern matches).";

const ALLOW =
  "Which tools, and which calls of them, may be used. A ceiling at every hop: whatever runs from here gets its caller's list ∩ this one. Omitted: no restriction at this level; written but empty: nothing at all.";

const PRE_APPROVES = "It also pre-approves the calls it allows, as in Claude Code: they run without asking.";

const INVOKED =
  "`inline` runs the body in the run that invoked it, narrowing that run's allow-list (and adding a skill's hooks) from then on; `fork` runs it as a run of its own (as the subagent `agent` names, when given) whose final answer comes back.";

export const KEY_DOCS: Readonly<Record<string, KeyDoc>> = {
  name: {
    title: "Name",
    on: {
      main: {
        description:
          "The main agent's name: shown in `agentmd chat`'s banner and recorded as the agent of its runs.",
        default: "`main`",
      },
      agent: {
        description:
          "Required. The subagent's identity: what `Task(name)`, the Task tool's `subagent_type` and `agentmd run --agent name` refer to (the file name does not matter). Unique among subagents.",
      },
      skill: {
        description:
          "Lowercase letters, digits and single hyphens, at most 64 characters (the Agent Skills rule), and the name of the skill's folder (a warning if not). A name that breaks the rule, or none, is a warning and the folder's name is used. A user types `/name`; `Skill(name)` and the Skill tool's `skill` refer to it.",
      },
      command: {
        description:
          "Ignored (an info diagnostic says so): a command is named by its path below `commands/`, so `commands/git/commit.md` is `/git:commit`.",
      },
    },
  },
  description: {
    title: "Description",
    on: {
      main: { description: "Accepted, and not used by the runner." },
      agent: {
        description:
          "Required. When to delegate to this subagent: the Task tool lists every subagent the run may start as `name: description`, and `agentmd chat`'s `/agents` shows it.",
      },
      skill: {
        description:
          "Required. What the skill does and when to use it: runs that may use the Skill tool get a catalog of `name: description` lines in their system prompt. Over 1,024 characters is a warning (the Agent Skills limit).",
      },
      command: {
        description: "Shown beside `/name` by `agentmd chat`'s `/skills`.",
        default: "the first non-empty line of the body, without leading `#`",
      },
    },
  },
  model: {
    title: "Model",
    on: {
      main: {
        description: `The main agent's model: an alias (${aliases}) or a model id. \`--model\`, the runner's \`model.id\` and ANTHROPIC_MODEL win over it.`,
        default: `\`${DEFAULT_MODEL}\``,
      },
      agent: {
        description: "The subagent's model: an alias, a model id, or `inherit` (its caller's model).",
        default: "the caller's model",
      },
      skill: {
        description:
          "The model of the run the skill starts when a user types `/name` or it is forked: an alias, a model id, or `inherit`. When the model loads an inline skill with the Skill tool, its run keeps its own model.",
        default: "the caller's model",
      },
      command: {
        description: "The model of the run `/name` starts: an alias, a model id, or `inherit`.",
        default: "the caller's model",
      },
    },
  },
  "allowed-tools": {
    title: "Allow-list",
    type: "tool list",
    default: "no restriction at this level",
    on: {
      main: {
        description: `${ALLOW} agent.md's list is also the approval: a call it allows runs without asking (docs/settings.md). ${LIST_FORMS}`,
        default: "no restriction",
      },
      agent: { description: `${ALLOW} ${LIST_FORMS}`, default: "the caller's list" },
      skill: { description: `${ALLOW} ${PRE_APPROVES} ${LIST_FORMS}`, default: "the caller's list" },
      command: { description: `${ALLOW} ${PRE_APPROVES} ${LIST_FORMS}`, default: "the caller's list" },
    },
  },
  tools: {
    title: "Allow-list (Claude Code's spelling)",
    type: "tool list",
    description:
      "Claude Code's name for `allowed-tools`: the same list. Writing both in one file is an error.",
  },
  "disallowed-tools": {
    title: "Deny list",
    type: "tool list",
    description: `Tools and calls that may never be used: a bare name removes the tool, \`Name(pattern)\` denies the calls it matches. Deny beats allow, and every run started from here inherits the list. ${LIST_FORMS}`,
    default: "nothing denied",
  },
  disallowedTools: {
    title: "Deny list (Claude Code's spelling)",
    type: "tool list",
    description:
      "Claude Code's name for `disallowed-tools`: the same list. Writing both in one file is an error.",
  },
  sandbox: {
    title: "OS sandbox",
    on: {
      main: {
        description:
          "`true`, or a map `{ allowedDomains: [host, *.host] }`: every command the Bash tool or a body's `!cmd` runs goes inside a bubblewrap sandbox compiled from the run's lists (writes only where Write/Edit rules allow whole folders, Read denies hidden, network only to WebFetch's hosts and `allowedDomains`). `--sandbox` and the runner's `sandbox` option win over it.",
        default: "off",
      },
      agent: {
        description:
          "`true` or a map `{ allowedDomains: [...] }` turns the sandbox on for this subagent's runs and everything they start. `false` is a warning and ignored: below agent.md the sandbox can only be turned on, and a caller's sandbox always applies.",
        default: "the caller's",
      },
      skill: {
        description:
          "`true` or a map `{ allowedDomains: [...] }` turns the sandbox on from when the skill is invoked. `false` is a warning and ignored: below agent.md the sandbox can only be turned on.",
        default: "the caller's",
      },
      command: {
        description:
          "`true` or a map `{ allowedDomains: [...] }` turns the sandbox on for what `/name` runs. `false` is a warning and ignored: below agent.md the sandbox can only be turned on.",
        default: "the caller's",
      },
    },
  },
  maxIterations: {
    title: "Turn limit",
    on: {
      main: {
        description:
          "Model turns a run may take before it stops with a limit. `--max-iterations` and the runner's `limits.maxIterations` win over it.",
        default: String(DEFAULT_MAX_ITERATIONS),
      },
      agent: {
        description: "Model turns each run of this subagent may take before it stops with a limit.",
        default: `the runner's (agent.md's \`maxIterations\`, else ${DEFAULT_MAX_ITERATIONS})`,
      },
    },
  },
  maxTurns: {
    title: "Turn limit (Claude Code's name)",
    description: "Claude Code's name for `maxIterations`; when both are written, `maxIterations` wins.",
    default: `the runner's (agent.md's \`maxIterations\`, else ${DEFAULT_MAX_ITERATIONS})`,
  },
  maxDepth: {
    title: "Nesting limit",
    description:
      "How deep runs may nest: a subagent, a forked skill and each of their children is one level deeper than its caller, and a run that would go deeper than this is not started (0: none at all). Inline skills and commands do not nest.",
    default: String(DEFAULT_MAX_DEPTH),
  },
  maxTokens: {
    title: "Output tokens per response",
    description:
      "The most tokens the model may write in one response (`max_tokens`). The runner's `limits.maxTokens` wins over it.",
    default: String(DEFAULT_MAX_TOKENS),
  },
  schemaValidation: {
    title: "Tool input validation",
    description:
      "What happens to a tool call whose input breaks the tool's schema: `enforce` refuses it and tells the model what is wrong; `warn` runs it with a warning; `off` does not check. The runner's `tools.schemaValidation` wins over it.",
    default: "`enforce`",
  },
  promptCaching: {
    title: "Prompt caching",
    description:
      "Marks the last tool, the system prompt and the newest user turn for the API's prompt cache. The runner's `promptCaching` option wins over it.",
    default: "true",
  },
  memory: {
    title: "Memory and environment",
    description:
      "`false`: the main agent's system prompt gets neither the memory files (CLAUDE.md, AGENTS.md, CLAUDE.local.md and their @imports) nor the environment block.",
    default: "true",
  },
  toolConcurrency: {
    title: "Parallel tool calls",
    type: "boolean or map",
    description: `\`false\` runs the calls of a response one at a time; a map sets \`enabled\`, \`maxConcurrency\` (calls at once across every run of the process, default ${DEFAULT_MAX_CONCURRENCY}) and \`perBatchMax\` (calls at once from one response, default maxConcurrency). Calls run side by side only when every call of the response is safe to (Read, Glob, Grep, WebFetch, Task, read-only Bash commands, MCP tools marked read-only).`,
    default: `on, ${DEFAULT_MAX_CONCURRENCY} at once`,
  },
  hooks: {
    title: "Hooks",
    type: "map of hook lists",
    on: {
      main: {
        description: `Command hooks, as Claude Code writes them, for its events (PreToolUse, PostToolUse, SessionStart, UserPromptSubmit, Stop, SubagentStart, SubagentStop, PreCompact, SessionEnd, Notification, Elicitation, ElicitationResult): each event a list of \`{ matcher, command, timeout }\` or \`{ matcher, hooks: [{ type: command, command, timeout }] }\`; \`timeout\` in seconds, default ${HOOK_TIMEOUT_S}. They run at every hop, subagents included. A hook of a blocking event that fails blocks (it fails closed); a misspelled event is an error (docs/hooks.md).`,
      },
      agent: {
        description: `Command hooks (the form and events agent.md uses; \`timeout\` default ${HOOK_TIMEOUT_S} s), run in this subagent's runs after its caller's hooks (docs/hooks.md).`,
      },
      skill: {
        description: `Command hooks (the form and events agent.md uses; \`timeout\` default ${HOOK_TIMEOUT_S} s), added to the run's hooks from when the skill is invoked, whether a user typed \`/name\` or the model called Skill (docs/hooks.md).`,
      },
    },
  },
  baseUrl: {
    title: "API base URL",
    description:
      "The Messages API's base URL (`http://` or `https://`). The runner's `model.baseURL` wins over it; ANTHROPIC_BASE_URL applies when neither is written.",
    default: "https://api.anthropic.com",
  },
  idleTimeoutMs: {
    title: "Silent-response timeout",
    description:
      "Milliseconds a model response may stay silent (no data, not even a ping) before the request is given up and retried. ANTHROPIC_TIMEOUT_MS and the runner's `model.idleTimeoutMs` win over it.",
    default: "120000",
  },
  mcpServers: {
    title: "MCP servers",
    type: "list or map",
    on: {
      main: {
        description:
          "MCP servers of the whole project, beside `.mcp.json`'s: a map of names to definitions as `.mcp.json` writes them (`command`, `args`, `env`, `cwd`; or `type: http|sse` with `url`, `headers`; agentmd's `defer: true`), or a list of `.mcp.json` server names and one-key maps `name: definition`.",
      },
      agent: {
        description:
          "MCP servers this subagent may reach: names of `.mcp.json` servers, or definitions written here, which live only for its runs and its children's. Its allow-list still decides which tools it gets.",
      },
    },
  },
  mcpTimeout: {
    title: "MCP call timeout",
    description:
      "Seconds an MCP server may take to answer one call; past it the model gets an error result and the server is started again on the next call. (Starting a server may take 30 s, whatever this says.)",
    default: String(DEFAULT_MCP_TIMEOUT_MS / 1000),
  },
  toolSearch: {
    title: "Deferred MCP tools",
    type: "`auto`, `auto:N`, or boolean",
    description: `When MCP tool definitions stay out of requests until the ToolSearch tool finds them: \`auto\` when they would take more than ${DEFAULT_TOOL_SEARCH_PERCENT}% of the context window (and always for a server's \`defer: true\`), \`auto:N\` past N%, \`true\` always, \`false\` never.`,
    default: "`auto`",
  },
  "argument-hint": {
    title: "Argument hint",
    description:
      "What the arguments look like (`<file> [--fast]`), as Claude Code shows it after `/name`. Read and kept on the definition (`argumentHint`); agentmd's own CLI does not show it.",
  },
  "disable-model-invocation": {
    title: "Only a user may invoke",
    on: {
      skill: {
        description:
          "`true`: only a user may invoke the skill (`/name`); it is left out of the skill catalog and the Skill tool refuses it.",
        default: "false",
      },
      command: {
        description:
          "Accepted; it changes nothing for a command, which the model cannot invoke anyway (the Skill tool invokes skills only).",
        default: "false",
      },
    },
  },
  "user-invocable": {
    title: "A user may invoke",
    on: {
      skill: {
        description:
          "`false`: a user cannot type `/name` (nor complete it); the model may still invoke the skill with the Skill tool.",
        default: "true",
      },
      command: {
        description:
          "`false`: a user cannot type `/name`; since the model cannot invoke commands, the command then never runs.",
        default: "true",
      },
    },
  },
  context: {
    title: "Inline or forked",
    description: INVOKED,
    default: "`inline`",
  },
  agent: {
    title: "Subagent of a fork",
    description:
      "With `context: fork`: the subagent the body runs as (its prompt, and its list ∩ the caller's ∩ this file's); the caller must be allowed `Task(agent)`. Without `context: fork` it is not used. A fork without `agent` runs with no system prompt.",
  },
  license: {
    title: "License",
    description: "The skill's license (Agent Skills spec). Checked to be text; agentmd does not act on it.",
  },
  compatibility: {
    title: "Compatibility",
    description:
      "What the skill needs of its environment (Agent Skills spec); over 500 characters is a warning. agentmd does not act on it.",
  },
  metadata: {
    title: "Metadata",
    type: "map",
    description:
      "A map of further properties (Agent Skills spec). Checked to be a map; agentmd does not act on it.",
  },
  ...UNATTENDED_KEY_DOCS,
  ...SUBAGENT_KEY_DOCS,
};

/** Every key agentmd accepts and ignores (`FOREIGN_KEYS`) is described by this. */
export const FOREIGN_KEY_DOC: KeyDoc = {
  title: "Accepted and ignored",
  description:
    "A key Claude Code or another tool defines (or metadata common in public collections): agentmd accepts it and does not act on it; `agentmd check` says so as info.",
};

/** The title, description and default of one key on one surface; undefined when none is written. */
export function keyDoc(
  key: string,
  surface: Surface,
): { title: string; description: string; default?: string; type?: string } | undefined {
  const doc = Object.hasOwn(KEY_DOCS, key) ? KEY_DOCS[key] : undefined;
  if (!doc) return undefined;
  const here = doc.on?.[surface];
  const description = here?.description ?? doc.description;
  if (description === undefined) return undefined;
  const dflt = here ? here.default : doc.default;
  return {
    title: doc.title,
    description,
    ...(dflt !== undefined && { default: dflt }),
    ...(doc.type !== undefined && { type: doc.type }),
  };
}
