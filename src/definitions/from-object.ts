import path from "node:path";
import YAML from "yaml";
import { known } from "./load.js";
import { loadDefinitionFile } from "./load-definition.js";
import type { Definition, Diagnostic, LoadOptions, Surface } from "./types.js";

/**
 * A definition written in code: the frontmatter keys as an object, and the body. `name` names a
 * command (`git:commit`); for the other surfaces it is an ordinary key.
 */
export interface DefinitionInput {
  readonly [key: string]: unknown;
  readonly body?: string;
}

export interface FromObjectResult {
  readonly definition?: Definition;
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * Validates a definition given as an object exactly as if it were a file: the same schemas, the
 * same diagnostics (their positions refer to the frontmatter as YAML, under a virtual file name
 * such as `<code>/agents/reviewer.md`). Contract: never throws.
 */
export function definitionFromObject(
  surface: Surface,
  input: DefinitionInput | object,
  root: string,
  options: LoadOptions = {},
): FromObjectResult {
  const { body = "", ...fields } = input as DefinitionInput;
  const name = typeof fields.name === "string" ? fields.name : "unnamed";
  const base = path.join(root, "<code>");
  const rel =
    surface === "main"
      ? "agent.md"
      : surface === "agent"
        ? `agents/${name}.md`
        : surface === "skill"
          ? `skills/${name}/SKILL.md`
          : `commands/${name.split(":").join("/")}.md`;
  const file = path.join(base, rel);
  const folder =
    surface === "agent" ? "agents" : surface === "skill" ? "skills" : surface === "command" ? "commands" : "";
  const frontmatter =
    Object.keys(fields).length > 0
      ? `---\n${YAML.stringify(surface === "command" ? omitName(fields) : fields)}---\n`
      : "";
  const loaded = loadDefinitionFile(
    { file, surface, root, base: folder ? path.join(base, folder) : base },
    { text: `${frontmatter}${String(body)}`, ...(options.toolNames && { known: known(options) }) },
  );
  return {
    diagnostics: loaded.diagnostics,
    ...(loaded.definition && { definition: { ...loaded.definition, root } }),
  };
}

function omitName(fields: Record<string, unknown>): Record<string, unknown> {
  const { name: _name, ...rest } = fields;
  return rest;
}
