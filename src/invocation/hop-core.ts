import type {
  CommandDefinition,
  Definition,
  MainAgentDefinition,
  SkillDefinition,
  SubagentDefinition,
  Surface,
} from "../definitions/types.js";
import type { Hooks } from "../loop/hooks.js";
import { definitionList } from "../permissions/definition-list.js";
import { intersect, UNRESTRICTED } from "../permissions/permission-list.js";
import type { PermissionList } from "../permissions/types.js";
import type { Settings } from "./settings.js";
import type { ToolCatalog } from "./tool-catalog.js";

/**
 * What preparing a run needs of a runner: the definitions by surface, their lists, the session's
 * ceiling and the settings. No model, no servers, no pool: a runner's core is this and more, and
 * `agentmd audit` walks every hop with this alone, through the same functions a run uses.
 */
export interface HopCore {
  readonly projectDir: string;
  readonly cwd: string;
  readonly definitions: readonly Definition[];
  readonly main: MainAgentDefinition | undefined;
  readonly agents: ReadonlyMap<string, SubagentDefinition>;
  readonly skills: ReadonlyMap<string, SkillDefinition>;
  readonly commands: ReadonlyMap<string, CommandDefinition>;
  /** The tools of every run (Task and Skill are added per run), their specs and names. */
  readonly catalog: ToolCatalog;
  readonly settings: Settings;
  /** agent.md's hooks, then the settings', then those given in code. */
  readonly hooks: Hooks;
  /**
   * What a user's runs may never exceed: the main agent's list (none without one), with the deny
   * rules of the settings and the command line. Every hop below intersects with it.
   */
  readonly ceiling: PermissionList;
  /** A definition's own allow and deny lists, compiled (once). */
  listOf(def: Definition): PermissionList;
}

export interface HopCoreInput {
  readonly projectDir: string;
  readonly cwd: string;
  readonly home: string;
  readonly definitions: readonly Definition[];
  readonly catalog: ToolCatalog;
  readonly settings: Settings;
  readonly hooks: Hooks;
  /** The session's deny rules (settings, command line): they join every hop. */
  readonly denied: PermissionList;
}

export function createHopCore(input: HopCoreInput): HopCore {
  const { definitions, catalog, home } = input;
  const lists = new WeakMap<Definition, PermissionList>();
  const listOf = (def: Definition) => {
    let l = lists.get(def);
    if (!l) {
      l = definitionList(def, { specs: catalog.specs, home });
      lists.set(def, l);
    }
    return l;
  };
  const main = definitions.find((d): d is MainAgentDefinition => d.surface === "main");
  return {
    projectDir: input.projectDir,
    cwd: input.cwd,
    definitions,
    main,
    agents: bySurface<SubagentDefinition>(definitions, "agent"),
    skills: bySurface<SkillDefinition>(definitions, "skill"),
    commands: bySurface<CommandDefinition>(definitions, "command"),
    catalog,
    settings: input.settings,
    hooks: input.hooks,
    ceiling: intersect(main ? listOf(main) : UNRESTRICTED, input.denied),
    listOf,
  };
}

function bySurface<D extends Definition>(all: readonly Definition[], surface: Surface): Map<string, D> {
  const m = new Map<string, D>();
  for (const d of all) if (d.surface === surface) m.set(d.name, d as D);
  return m;
}

/**
 * The definition a name calls: the one of that name, else the only plugin's whose bare name it is
 * (`writing-rules` for `hookify:writing-rules`). The project's own of a bare name are found first,
 * and a bare name two plugins share calls neither.
 */
export function byName<D extends Definition>(map: ReadonlyMap<string, D>, name: string): D | undefined {
  const exact = map.get(name);
  if (exact || name.includes(":")) return exact;
  const bare = [...map.values()].filter((d) => d.plugin && d.name === `${d.plugin.name}:${name}`);
  return bare.length === 1 ? bare[0] : undefined;
}
