import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { auditProject, auditToolNames, type EntryAudit } from "../../src/audit/audit.js";
import { definitionFromObject } from "../../src/definitions/from-object.js";
import { NO_SETTINGS } from "../../src/definitions/settings.js";
import type { Definition, SkillDefinition, ToolEntry } from "../../src/definitions/types.js";
import { builtinCatalog } from "../../src/invocation/tool-catalog.js";
import {
  allowsNothing,
  canonicalToolName,
  compileList,
  decide,
  definitionList,
  intersect,
  loadShellParser,
  type PermissionList,
  toolMatcher,
  UNRESTRICTED,
} from "../../src/permissions/index.js";

/**
 * The audit never reports less than a run could do. Projects are generated; chains are taken by an
 * oracle written from the documented hop rules (not from the audit's walk): Task(x) when the list
 * allows it below maxDepth, Skill(x) unless disable-model-invocation, inline skills narrowing the
 * run, forks starting one (their `agent:` needing Task of it). Every call `decide` allows anywhere
 * along such a chain must be admitted by a grant the audit reports for that run (the main agent, the
 * subagent, the forked skill) from the chain's entry point: a chain the audit missed would fail.
 */

const CATALOG = builtinCatalog();
const SPECS = CATALOG.specs;
const ROOT = "/proj";
const HOME = "/home/u";
const AGENTS = ["a", "b", "c"] as const;
const SKILLS = ["x", "y"] as const;

const ALLOW = [
  "Read",
  "Read(src/**)",
  "Grep",
  "Grep(src/**)",
  "Bash(git:*)",
  "Bash(git status)",
  "Bash(npm test)",
  "Bash",
  "Write(src/**)",
  "Edit(src/**)",
  "WebFetch",
  "WebFetch(domain:a.io)",
  "Task(a)",
  "Task(b)",
  "Task(c)",
  "Task(*)",
  "Task",
  "Skill(x)",
  "Skill(y)",
  "Skill",
  "mcp__s__*",
  "*",
];
const DENY = [
  "Bash(git push:*)",
  "Read(.env)",
  "Task(c)",
  "Skill(y)",
  "WebFetch",
  "Write",
  "Read(src/secret/**)",
];

const listArb = (pool: readonly string[], max: number) =>
  fc.uniqueArray(fc.constantFrom(...pool), { maxLength: max });
const allowArb = fc.option(listArb(ALLOW, 5), { nil: undefined });
const denyArb = listArb(DENY, 2);

interface Gen {
  readonly main?: { readonly allow?: string[]; readonly deny: string[]; readonly maxDepth: number };
  readonly agents: readonly { readonly allow?: string[]; readonly deny: string[] }[];
  readonly skills: readonly {
    readonly allow?: string[];
    readonly fork: boolean;
    readonly agent?: string;
    readonly modelOff: boolean;
  }[];
  readonly command?: string[];
  readonly settingsDeny: string[];
}

const genArb: fc.Arbitrary<Gen> = fc.record({
  main: fc.option(fc.record({ allow: allowArb, deny: denyArb, maxDepth: fc.integer({ min: 1, max: 3 }) }), {
    nil: undefined,
  }),
  agents: fc.tuple(...AGENTS.map(() => fc.record({ allow: allowArb, deny: denyArb }))),
  skills: fc.tuple(
    ...SKILLS.map(() =>
      fc.record({
        allow: allowArb,
        fork: fc.boolean(),
        agent: fc.option(fc.constantFrom(...AGENTS), { nil: undefined }),
        modelOff: fc.constantFrom(false, false, false, true),
      }),
    ),
  ),
  command: allowArb,
  settingsDeny: listArb(DENY, 1),
});

const lists = (allow: string[] | undefined, deny: string[]) => ({
  ...(allow && { "allowed-tools": allow }),
  ...(deny.length > 0 && { "disallowed-tools": deny }),
});

function definitions(g: Gen): Definition[] {
  const make = (surface: Definition["surface"], input: object) => {
    const r = definitionFromObject(surface, input, ROOT, { toolNames: CATALOG.names });
    if (!r.definition) throw new Error(JSON.stringify(r.diagnostics));
    return r.definition;
  };
  return [
    ...(g.main ? [make("main", { ...lists(g.main.allow, g.main.deny), maxDepth: g.main.maxDepth })] : []),
    ...g.agents.map((a, i) =>
      make("agent", { name: AGENTS[i], description: "d", ...lists(a.allow, a.deny) }),
    ),
    ...g.skills.map((s, i) =>
      make("skill", {
        name: SKILLS[i],
        description: "d",
        ...lists(s.allow, []),
        ...(s.fork && { context: "fork", ...(s.agent && { agent: s.agent }) }),
        ...(s.modelOff && { "disable-model-invocation": true }),
      }),
    ),
    make("command", { name: "cmd", ...lists(g.command, []) }),
  ];
}

const entryOf = (raw: string, i: number): ToolEntry => {
  const m = /^([^(]+)(?:\((.*)\))?$/.exec(raw) as RegExpExecArray;
  return {
    name: m[1] as string,
    ...(m[2] !== undefined && { pattern: m[2] }),
    raw,
    at: { file: `${ROOT}/.claude/settings.json`, line: 1, column: i + 1 },
  };
};

type Step = { readonly task: string } | { readonly skill: string };
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.constantFrom(...AGENTS).map((task) => ({ task })),
  fc.constantFrom(...SKILLS).map((skill) => ({ skill })),
);
const pathArb = fc.record({
  entry: fc.constantFrom("main", "/cmd", ...SKILLS.map((s) => `/${s}`), ...AGENTS.map((a) => `--agent ${a}`)),
  steps: fc.array(stepArb, { maxLength: 4 }),
});

const CALLS: [string, string, string[]][] = [
  ["Read", "file_path", ["/proj/src/a.ts", "/proj/.env", "/proj/src/secret/k", "/etc/passwd"]],
  ["Grep", "path", ["/proj/src", "/proj"]],
  [
    "Bash",
    "command",
    ["git status", "git push", "npm test", "git log --oneline | head -3", "rm -rf x", "env git push"],
  ],
  ["Write", "file_path", ["/proj/src/a.ts", "/tmp/a"]],
  ["Edit", "file_path", ["/proj/src/a.ts", "/proj/README.md"]],
  ["WebFetch", "url", ["https://a.io/x", "https://b.io/"]],
  ["Task", "subagent_type", ["a", "b", "c"]],
  ["Skill", "skill", ["x", "y"]],
  ["mcp__s__t", "q", ["1"]],
  ["mcp__other__t", "q", ["1"]],
];
const callArb = fc
  .constantFrom(...CALLS)
  .chain(([tool, field, values]) => fc.constantFrom(...values).map((v) => ({ tool, input: { [field]: v } })));

const judged = { specs: SPECS, cwd: ROOT };
const allows = (l: PermissionList, tool: string, input: unknown) =>
  decide(l, { tool, input }, judged).kind === "allowed";

interface Reached {
  /** Who runs: `main`, `agent:NAME`, `skill:NAME` (a fork). */
  readonly as: string;
  readonly list: PermissionList;
}

/** The runs one path reaches, by the documented rules; [] when its start is refused. */
function oracle(
  g: Gen,
  defs: readonly Definition[],
  path: { entry: string; steps: readonly Step[] },
): Reached[] {
  const own = (surface: string, name: string) => {
    const d = defs.find((x) => x.surface === surface && (surface === "main" || x.name === name));
    return d ? definitionList(d, { specs: SPECS, home: HOME }) : UNRESTRICTED;
  };
  const skill = (name: string) =>
    defs.find((d) => d.surface === "skill" && d.name === name) as SkillDefinition;
  const maxDepth = g.main?.maxDepth ?? 3;
  const settings = compileList(undefined, g.settingsDeny.map(entryOf), {
    specs: SPECS,
    projectDir: ROOT,
    home: HOME,
  });
  const ceiling = intersect(g.main ? own("main", "") : UNRESTRICTED, settings);
  /** A skill run on its own from `list` (a fork): its list, or undefined when it cannot start. */
  const fork = (list: PermissionList, s: SkillDefinition) => {
    const first = intersect(list, own("skill", s.name));
    if (allowsNothing(first)) return undefined;
    if (!s.agent) return first;
    if (!allows(list, "Task", { subagent_type: s.agent })) return undefined;
    const second = intersect(first, own("agent", s.agent));
    return allowsNothing(second) ? undefined : second;
  };
  let list: PermissionList | undefined;
  let as = "main";
  if (path.entry === "main") list = ceiling;
  else if (path.entry === "/cmd") list = intersect(ceiling, own("command", "cmd"));
  else if (path.entry.startsWith("--agent ")) {
    as = `agent:${path.entry.slice(8)}`;
    list = intersect(ceiling, own("agent", path.entry.slice(8)));
  } else {
    const s = skill(path.entry.slice(1));
    if (s.context === "fork") as = `skill:${s.name}`;
    list = s.context === "fork" ? fork(ceiling, s) : intersect(ceiling, own("skill", s.name));
  }
  if (!list || allowsNothing(list)) return [];
  const reached: Reached[] = [{ as, list }];
  let depth = 0;
  for (const step of path.steps) {
    let next: PermissionList | undefined;
    if ("task" in step) {
      if (depth >= maxDepth || !allows(list, "Task", { subagent_type: step.task })) break;
      next = intersect(list, own("agent", step.task));
      as = `agent:${step.task}`;
      depth += 1;
    } else {
      const s = skill(step.skill);
      if (s.disableModelInvocation || !allows(list, "Skill", { skill: s.name })) break;
      if (s.context === "fork") {
        if (depth + 1 > maxDepth) break;
        next = fork(list, s);
        as = `skill:${s.name}`;
        depth += 1;
      } else next = intersect(list, own("skill", s.name));
    }
    if (!next || allowsNothing(next)) break;
    list = next;
    reached.push({ as, list });
  }
  return reached;
}

/** Whether a grant the audit reports for that run of the entry point admits the call. */
function reported(
  entry: EntryAudit,
  as: string,
  names: readonly string[],
  tool: string,
  input: unknown,
): boolean {
  const t = canonicalToolName(tool);
  const run = entry.runs.find((r) => r.as === as);
  return (run?.grants ?? []).some(({ grant: g }) => {
    const mine = names.includes(t) ? g.tool === t : toolMatcher(g.tool).kind !== "exact";
    const rule = g.rule ?? { tool: toolMatcher(g.tool), constraints: [], origins: [] };
    return mine && allows({ rules: [rule], deny: g.denies }, tool, input);
  });
}

beforeAll(loadShellParser);

describe("agentmd audit against runs", () => {
  it("never reports less than a chain of hops could do", () => {
    fc.assert(
      fc.property(
        genArb,
        fc.array(pathArb, { minLength: 1, maxLength: 6 }),
        fc.array(callArb, { minLength: 1, maxLength: 8 }),
        (g, paths, calls) => {
          const defs = definitions(g);
          const source = {
            projectDir: ROOT,
            cwd: ROOT,
            home: HOME,
            definitions: defs,
            settings: { ...NO_SETTINGS, deny: g.settingsDeny.map(entryOf) },
            catalog: CATALOG,
            servers: [],
          };
          const names = auditToolNames([source]);
          const audit = auditProject(source, names);
          for (const path of paths) {
            const entry = audit.entryPoints.find((e) => e.name === path.entry) as EntryAudit;
            expect(entry).toBeDefined();
            for (const { as, list } of oracle(g, defs, path))
              for (const c of calls)
                if (allows(list, c.tool, c.input))
                  expect(reported(entry, as, names, c.tool, c.input)).toBe(true);
          }
        },
      ),
      { numRuns: 120 },
    );
  });
});
