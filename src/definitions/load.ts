import path from "node:path";
import { compareDiagnostics } from "./diagnostics.js";
import { type Discovery, discoverPaths, discoverProject } from "./discover.js";
import { loadDefinitionFile } from "./load-definition.js";
import { projectPlugins } from "./plugins.js";
import { type ToolNames, toolNames } from "./tool-names.js";
import type { Definition, Diagnostic, FileReport, LoadOptions, LoadResult } from "./types.js";

/** Loads the definitions of one project folder (see `discoverProject`). Contract: never throws. */
export function loadProject(root: string, options: LoadOptions = {}): LoadResult {
  const plugins = projectPlugins(path.resolve(root), {
    ...(options.userDir !== undefined && { userDir: options.userDir }),
    ...(options.pluginDirs && { pluginDirs: options.pluginDirs }),
  });
  const refs = plugins.plugins.map((p) => ({ name: p.name, id: p.id, root: p.root, owner: p.owner }));
  const loaded = loadDiscovered(discoverProject(root, options.userDir, refs), known(options));
  return {
    ...loaded,
    diagnostics: [...loaded.diagnostics, ...plugins.diagnostics].sort(compareDiagnostics),
    plugins: plugins.plugins,
    pluginErrors: plugins.diagnostics.filter((d) => d.severity === "error"),
  };
}

/** Loads whatever files and folders are given (see `discoverPaths`). Contract: never throws. */
export function loadPaths(paths: readonly string[], options: LoadOptions = {}): LoadResult {
  return loadDiscovered(discoverPaths(paths), known(options));
}

export function known(options: LoadOptions): ToolNames | undefined {
  return options.toolNames ? toolNames(options.toolNames) : undefined;
}

function loadDiscovered(discovery: Discovery, names: ToolNames | undefined): LoadResult {
  const definitions = new Map<string, Definition>();
  const diagnostics: Diagnostic[] = [...discovery.diagnostics];
  const files: FileReport[] = [];
  const userFile = new Set(discovery.found.filter((f) => f.user).map((f) => f.file));
  const shadowedFiles = new Set<string>();
  for (const found of discovery.found) {
    const loaded = loadDefinitionFile(found, names ? { known: names } : {});
    diagnostics.push(...loaded.diagnostics);
    let outcome = loaded.outcome;
    const def = loaded.definition;
    if (def) {
      const key = `${found.root}\0${def.surface}\0${def.surface === "main" ? "" : def.name}`;
      const owner = definitions.get(key);
      if (owner && userFile.has(owner.file) && !found.user) {
        // A project's definition takes the place of the user's of the same name.
        diagnostics.push(shadowed(owner, def));
        definitions.set(key, def);
        shadowedFiles.add(owner.file);
      } else if (owner && def.surface !== "main") {
        // Two folders with one name (a copy under agents/external/, say): the first in path order
        // is the one used, and this one is said to be passed over.
        outcome = "shadowed";
        diagnostics.push(duplicate(def, owner, found.root));
      } else if (owner) {
        outcome = "failed";
        diagnostics.push(duplicate(def, owner, found.root));
      } else {
        definitions.set(key, def);
      }
    }
    files.push({ file: found.file, surface: found.surface, outcome });
  }
  for (const [i, f] of files.entries())
    if (shadowedFiles.has(f.file)) files[i] = { ...f, outcome: "shadowed" };
  const all = [...definitions.values()];
  diagnostics.push(...shadowedCommands(all));
  diagnostics.sort(compareDiagnostics);
  return { definitions: all, diagnostics, files, plugins: [] };
}

function shadowed(user: Definition, project: Definition): Diagnostic {
  return {
    file: user.file,
    line: 1,
    column: 1,
    severity: "info",
    code: "shadowed-by-project",
    surface: user.surface,
    message: `the project's ${SURFACE_NOUN[user.surface]} '${user.name}' (${project.file}) takes the place of this one`,
  };
}

function duplicate(def: Definition, owner: Definition, root: string): Diagnostic {
  const where = path.relative(root, owner.file);
  return {
    file: def.file,
    line: 1,
    column: 1,
    severity: def.surface === "main" ? "error" : "warning",
    code: "duplicate-name",
    surface: def.surface,
    message:
      def.surface === "main"
        ? `a second main agent: ${where} is the main agent, so this one is not loaded`
        : `${SURFACE_NOUN[def.surface]} '${def.name}' is also defined in ${where}, which comes first and is the one used; this one is not (rename one to use both)`,
  };
}

const SURFACE_NOUN = { main: "main agent", agent: "subagent", skill: "skill", command: "command" } as const;

/** A skill and a command with one name: `/name` runs the skill, so the command is said to be shadowed. */
function shadowedCommands(definitions: readonly Definition[]): Diagnostic[] {
  const skills = new Map(
    definitions.filter((d) => d.surface === "skill").map((d) => [`${d.root}\0${d.name}`, d] as const),
  );
  const out: Diagnostic[] = [];
  for (const c of definitions) {
    if (c.surface !== "command") continue;
    const skill = skills.get(`${c.root}\0${c.name}`);
    if (!skill) continue;
    out.push({
      file: c.file,
      line: 1,
      column: 1,
      severity: "warning",
      code: "command-shadowed-by-skill",
      surface: "command",
      message: `the skill '${c.name}' (${path.relative(c.root, skill.file)}) has the same name; /${c.name} runs the skill, not this command`,
    });
  }
  return out;
}
