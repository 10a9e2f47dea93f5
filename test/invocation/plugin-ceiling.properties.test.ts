import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadProject } from "../../src/definitions/load.js";
import { userCaller } from "../../src/invocation/callers.js";
import { createHopCore } from "../../src/invocation/hop-core.js";
import { prepareRun, resolveInvocable } from "../../src/invocation/prepare-run.js";
import { resolveSettings } from "../../src/invocation/settings.js";
import { builtinCatalog } from "../../src/invocation/tool-catalog.js";
import { mergeHooks } from "../../src/loop/hooks.js";
import { compileList, decide, loadShellParser, type PermissionList } from "../../src/permissions/index.js";
import { tempDir } from "../support/fixtures.js";
import { writeFiles } from "../support/tools.js";

/**
 * A plugin's command and agent never widen the project's list: whatever allowed-tools a plugin
 * command or agent writes (its own folder's scripts, `Bash`, `*`), and whatever the project's
 * agent.md allows and the settings deny, every call the run of `/p:cmd` or of Task `p:helper` may
 * make is one the project's ceiling allows. The project is written to disk and loaded through the
 * loader a run uses, the plugin enabled from a local marketplace.
 */

const CATALOG = builtinCatalog();
const POOL = [
  "Read",
  "Bash",
  "Bash(echo:*)",
  "Bash(${CLAUDE_PLUGIN_ROOT}/scripts/run.sh:*)",
  "Bash(git:*)",
  "Write",
  "Edit(src/**)",
  "WebFetch",
  "Grep",
  "*",
];
const PROBES = [
  { tool: "Read", input: { file_path: "notes.txt" } },
  { tool: "Bash", input: { command: "echo hi" } },
  { tool: "Bash", input: { command: "rm -rf /" } },
  { tool: "Bash", input: { command: "git push" } },
  { tool: "Write", input: { file_path: "src/a.ts", content: "" } },
  { tool: "Edit", input: { file_path: "src/a.ts", old_string: "a", new_string: "b" } },
  { tool: "WebFetch", input: { url: "https://example.com", prompt: "x" } },
  { tool: "Grep", input: { pattern: "x" } },
];

let dir: string;
let cleanup: () => void;
beforeAll(async () => {
  ({ dir, cleanup } = tempDir());
  await loadShellParser();
});
afterAll(() => cleanup());

const list = (xs: readonly string[]) => xs.map((x) => JSON.stringify(x)).join(", ");

describe("property: a plugin's entries stay within the project's lists", () => {
  it("no call a plugin command or agent may make is one the ceiling refuses", () => {
    let checked = 0;
    const lists = fc.uniqueArray(fc.constantFrom(...POOL), { minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(
        lists,
        lists,
        lists,
        fc.subarray(["Bash(rm:*)", "Write", "WebFetch"]),
        (main, cmd, agent, deny) => {
          const root = path.join(dir, "p");
          writeFiles(root, {
            "agent.md": `---\ntools: [${list([...main, "Task"])}]\n---\nmain\n`,
            ".claude/settings.json": JSON.stringify({
              permissions: { deny },
              extraKnownMarketplaces: { m: { source: { source: "directory", path: "./market" } } },
              enabledPlugins: { "p@m": true },
            }),
            "market/.claude-plugin/marketplace.json": JSON.stringify({
              name: "m",
              plugins: [{ name: "p", source: "./p" }],
            }),
            "market/p/.claude-plugin/plugin.json": JSON.stringify({ name: "p" }),
            "market/p/commands/cmd.md": `---\nallowed-tools: [${list(cmd)}]\n---\ndo it\n`,
            "market/p/agents/helper.md": `---\nname: helper\ndescription: helps\ntools: [${list(agent)}]\n---\nhelp\n`,
          });
          const loaded = loadProject(root, { toolNames: CATALOG.names });
          const main_ = loaded.definitions.find((d) => d.surface === "main");
          const ctx = { specs: CATALOG.specs, projectDir: root, home: "/home/u" };
          const core = createHopCore({
            projectDir: root,
            cwd: root,
            home: "/home/u",
            definitions: loaded.definitions,
            catalog: CATALOG,
            settings: resolveSettings({}, main_?.surface === "main" ? main_ : undefined),
            hooks: mergeHooks(),
            denied: compileList(
              undefined,
              deny.map((raw) => ({
                name: raw.replace(/\(.*/, ""),
                ...(raw.includes("(") && { pattern: raw.slice(raw.indexOf("(") + 1, -1) }),
                raw,
                at: { file: "s", line: 1, column: 1 },
              })),
              ctx,
            ),
          });
          const caller = userCaller(core);
          const runs: PermissionList[] = [];
          const cmdRun = resolveInvocable(core, caller, "p:cmd", "", "user");
          if (cmdRun.kind === "inline") runs.push(cmdRun.list);
          if (cmdRun.kind === "ready") runs.push(cmdRun.spec.list);
          const agentRun = prepareRun(core, caller, { kind: "agent", name: "p:helper", content: "go" });
          if (agentRun.kind === "ready") runs.push(agentRun.spec.list);
          const judged = { specs: CATALOG.specs, cwd: root };
          for (const run of runs)
            for (const probe of PROBES)
              if (decide(run, probe, judged).kind === "allowed" && ++checked)
                expect(
                  decide(core.ceiling, probe, judged).kind,
                  `${probe.tool} ${JSON.stringify(probe.input)}`,
                ).toBe("allowed");
        },
      ),
      { numRuns: 40 },
    );
    // The property was tested on calls some plugin run was allowed, not only on refusals.
    expect(checked).toBeGreaterThan(0);
  });
});
