import { FOREIGN_HOOK_EVENTS, HOOK_EVENTS } from "./check-hooks.js";
import { FOREIGN_KEY_DOC, keyDoc } from "./key-docs.js";
import { IGNORED_SETTINGS_KEYS, PERMISSION_MODES } from "./settings.js";
import { ALLOW_LIST_KEYS, DENY_LIST_KEYS, FOREIGN_KEYS, SURFACE_SCHEMAS } from "./surface-schemas.js";
import { SURFACES, type Surface } from "./types.js";

/**
 * JSON Schemas (draft-07, what editors' YAML and frontmatter plugins read best) for the frontmatter
 * of each surface and for `.claude/settings.json`, generated from the schemas the loader validates
 * with (`SURFACE_SCHEMAS`) and the descriptions of `KEY_DOCS`. `npm run build` writes them to
 * `schemas/`; a test regenerates them and compares, so the files cannot drift from the loader.
 *
 * Where the loader judges a value outside its schema, the editor schema says what that code accepts:
 * tool lists (a string or a list of strings), `toolConcurrency: false`, hook event names (a
 * misspelled event is an error, Claude Code's other events are accepted). Keys agentmd accepts and
 * ignores are listed, so that editors do not flag them; any other key is flagged, as the loader
 * warns about it. Union types are written as `anyOf`, which strict validators (ajv) accept.
 */

type JsonSchema = Record<string, unknown>;

const DRAFT = "http://json-schema.org/draft-07/schema#";

/** Where each surface's schema is written, below `schemas/`. */
export const SCHEMA_FILES: Readonly<Record<Surface, string>> = {
  main: "agent.json",
  agent: "subagent.json",
  skill: "skill.json",
  command: "command.json",
};
export const SETTINGS_SCHEMA_FILE = "settings.json";

const SURFACE_TITLES: Readonly<Record<Surface, [title: string, description: string]>> = {
  main: ["agentmd agent.md frontmatter", "The main agent: agent.md at the project root."],
  agent: ["agentmd subagent frontmatter", "A subagent: agents/*.md or .claude/agents/*.md."],
  skill: ["agentmd skill frontmatter", "A skill: skills/<name>/SKILL.md or .claude/skills/<name>/SKILL.md."],
  command: ["agentmd command frontmatter", "A slash command: commands/**/*.md or .claude/commands/**/*.md."],
};

/** The frontmatter schema of one surface, for editors. Throws when a key has no description. */
export function editorSchema(surface: Surface): JsonSchema {
  const loader = SURFACE_SCHEMAS[surface];
  const own = loader.properties as Record<string, JsonSchema>;
  const properties: Record<string, JsonSchema> = {};
  for (const [key, value] of Object.entries(own)) {
    const doc = keyDoc(key, surface);
    if (!doc) throw new Error(`'${key}' (${surface}) has no description in KEY_DOCS`);
    properties[key] = {
      title: doc.title,
      description: withDefault(doc.description, doc.default),
      ...editorValue(key, value),
    };
  }
  for (const key of [...FOREIGN_KEYS].sort()) {
    if (!Object.hasOwn(properties, key))
      properties[key] = { title: FOREIGN_KEY_DOC.title, description: FOREIGN_KEY_DOC.description };
  }
  const [title, description] = SURFACE_TITLES[surface];
  return {
    $schema: DRAFT,
    title,
    description: `${description} Keys agentmd reads, and those it accepts and ignores; see docs/formats.md.`,
    type: "object",
    properties,
    ...(Array.isArray(loader.required) && { required: loader.required }),
    additionalProperties: false,
  };
}

export function withDefault(description: string, dflt: string | undefined): string {
  return dflt === undefined ? description : `${description} Default: ${dflt.replace(/`/g, "")}.`;
}

const TOOL_LIST: JsonSchema = {
  anyOf: [
    { type: "string" },
    { type: "array", items: { type: "string" } },
    {
      type: "null",
      description:
        "Written but empty: an empty allow-list allows nothing, an empty deny list denies nothing.",
    },
  ],
};

/** A key's value schema for editors: the loader's, with what the loader reads outside it. */
function editorValue(key: string, loader: JsonSchema): JsonSchema {
  if (
    (ALLOW_LIST_KEYS as readonly string[]).includes(key) ||
    (DENY_LIST_KEYS as readonly string[]).includes(key)
  )
    return TOOL_LIST;
  // `toolConcurrency: false` is read as `{ enabled: false }` before the schema runs.
  if (key === "toolConcurrency") return { anyOf: [{ type: "boolean" }, loader] };
  if (key === "hooks") return hooksSchema(loader);
  return splitUnion(loader);
}

/** The keywords that apply to each JSON type, for splitting `type: [a, b]` into `anyOf`. */
const KEYWORDS_OF: Readonly<Record<string, readonly string[]>> = {
  string: ["pattern", "maxLength", "minLength"],
  object: ["properties", "additionalProperties", "required"],
  array: ["items"],
  integer: ["minimum", "maximum", "exclusiveMinimum"],
  number: ["minimum", "maximum", "exclusiveMinimum"],
  boolean: [],
};

function splitUnion(schema: JsonSchema): JsonSchema {
  if (!Array.isArray(schema.type)) return schema;
  return {
    anyOf: (schema.type as string[]).map((type) => {
      const own = (KEYWORDS_OF[type] ?? []).filter((k) => schema[k] !== undefined);
      return { type, ...Object.fromEntries(own.map((k) => [k, schema[k]])) };
    }),
  };
}

const EVENT_DOCS: Readonly<Record<string, string>> = {
  PreToolUse:
    "Before a call runs, once the allow-lists allowed it: exit 2 (stderr is the reason) or a JSON deny blocks it, a JSON ask asks a user; a hook that times out, cannot start or exits otherwise blocks it too.",
  PostToolUse:
    "After a call ran, with its result: a JSON block, or additionalContext, adds its text to the result the model sees; a hook that fails is a warning.",
  SessionStart:
    "On a session's first run (matcher: startup, resume, clear, compact): its standard output or additionalContext reaches the model; a hook that fails stops the session.",
  UserPromptSubmit:
    "Before a user's prompt is sent: exit 2 or a JSON block sends nothing and shows the reason; standard output or additionalContext goes beside the prompt; a hook that fails blocks it too.",
  Stop: "When the model stops: a JSON block (or exit 2) makes the run go on with one more request carrying the reason; a hook that fails ends the run as an error.",
  SubagentStart:
    "Before a subagent's run (matcher: its name): additionalContext goes beside its prompt; a block or a failure stops it.",
  SubagentStop:
    "When a subagent's run stops, before its caller's next request (matcher: its name): as Stop, for the subagent.",
  PreCompact:
    "Before the conversation is compacted (matcher: auto or manual): a block or a failure keeps it as it is.",
  SessionEnd: "When a session ends (matcher: its reason). Cannot block: a failure is a warning.",
  Notification:
    "When a call waits for a user's approval (matcher: permission_prompt). Cannot block: a failure is a warning.",
  Elicitation:
    "When an MCP server asks the user something, before anyone is asked (matcher: the server's name): a JSON action (accept with content, decline, cancel) answers for the user; exit 2, a block or a failure declines.",
  ElicitationResult:
    "After a server's question was answered, before the answer is sent (matcher: the server's name): a JSON action and content replace the answer; exit 2, a block or a failure declines.",
};

/** `hooks`: agentmd's events with the loader's entry schema, Claude Code's others accepted. */
function hooksSchema(loader: JsonSchema): JsonSchema {
  const events = loader.properties as Record<string, JsonSchema>;
  const properties: Record<string, JsonSchema> = {};
  for (const event of HOOK_EVENTS) properties[event] = { description: EVENT_DOCS[event], ...events[event] };
  for (const event of FOREIGN_HOOK_EVENTS)
    properties[event] = {
      description: "A Claude Code hook event agentmd does not run: accepted with a warning, and ignored.",
    };
  return { type: "object", properties, additionalProperties: false };
}

const RULES = (what: string): JsonSchema => ({
  description: `${what} Each rule is \`Tool\` or \`Tool(pattern)\`; in path patterns \`//x\` is the absolute /x, \`/x\` is relative to the project (to the home folder in ~/.claude/settings.json), \`~/x\` is in the home folder. See docs/permissions.md.`,
  type: "array",
  items: { type: "string" },
});

/** `.claude/settings.json` (and settings.local.json, ~/.claude/settings.json) as agentmd reads it. */
export function settingsEditorSchema(): JsonSchema {
  const ignored: Record<string, JsonSchema> = {};
  for (const key of [...IGNORED_SETTINGS_KEYS].sort())
    ignored[key] = { description: "A Claude Code setting agentmd accepts and does not act on." };
  ignored.$schema = {
    type: "string",
    description: "The schema of this file, for editors; agentmd ignores it.",
  };
  return {
    $schema: DRAFT,
    title: "agentmd reading of Claude Code settings",
    description:
      "~/.claude/settings.json, .claude/settings.json and .claude/settings.local.json as agentmd reads them: the rules of all three apply, the most specific file's defaultMode and env values win. See docs/settings.md.",
    type: "object",
    properties: {
      permissions: {
        description: "Permission rules, the approval mode and the working folders.",
        type: "object",
        properties: {
          allow: RULES(
            "Calls pre-approved: they run without asking. With agent.md they change nothing (its list is the approval), and never widen its list.",
          ),
          deny: RULES(
            "Calls denied at every hop: no subagent, skill or command escapes them. A bare name removes the tool.",
          ),
          ask: RULES("Calls that need a user's approval every time, even when pre-approved."),
          defaultMode: {
            description:
              "The approval mode: default asks before anything but reading inside the working folders; acceptEdits also runs edits there; plan runs only reading tools and read-only commands; bypassPermissions runs every call the lists allow. --permission-mode wins over it.",
            enum: [...PERMISSION_MODES],
          },
          additionalDirectories: {
            description:
              "Folders that count as working folders beside the project and the working folder (reading there needs no approval), relative to the project.",
            type: "array",
            items: { type: "string" },
          },
          disableBypassPermissionsMode: {
            description: "Accepted and not acted on: it does not keep bypassPermissions from being used.",
          },
        },
        additionalProperties: false,
      },
      model: {
        description:
          "The model of the runs whose agent.md names none: an alias (sonnet, opus, haiku) or a model id. agent.md's model wins over it; --model and ANTHROPIC_MODEL win over both.",
        type: "string",
      },
      env: {
        description:
          "Environment variables for the run: its tools, hooks and MCP servers, and the model client (ANTHROPIC_MODEL, ANTHROPIC_BASE_URL, …). They win over the process's own.",
        type: "object",
        additionalProperties: { type: "string" },
      },
      hooks: {
        description:
          "PreToolUse and PostToolUse command hooks, run after agent.md's and before those given in code. See docs/hooks.md.",
        ...hooksSchema((SURFACE_SCHEMAS.main.properties as Record<string, JsonSchema>).hooks as JsonSchema),
      },
      ...ignored,
    },
    additionalProperties: false,
  };
}

/** Every schema file, by its name below `schemas/`, as the text written there. */
export function editorSchemaFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  for (const surface of SURFACES) files[SCHEMA_FILES[surface]] = json(editorSchema(surface));
  files[SETTINGS_SCHEMA_FILE] = json(settingsEditorSchema());
  return files;
}

const json = (schema: JsonSchema) => `${JSON.stringify(schema, null, 2)}\n`;
