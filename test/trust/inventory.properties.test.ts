import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { beforeAll, describe, expect } from "vitest";
import { diffCodeInputs } from "../../src/audit/code-diff.js";
import { codeInputs } from "../../src/audit/code-inputs.js";
import { loadProject } from "../../src/definitions/load.js";
import { protectedWriteDenies } from "../../src/invocation/protected-paths.js";
import { compileList, decide, loadShellParser, type ShellParser } from "../../src/permissions/index.js";
import { realPathOf } from "../../src/tools/real-path.js";
import { projectInventory } from "../../src/trust/inventory/inventory.js";
import { protectedPaths } from "../../src/trust/inventory/protected.js";
import { trustState } from "../../src/trust/trust-state.js";
import { recordTrust } from "../../src/trust/trust-store.js";
import { test } from "../support/fixture.js";
import { entries, SPECS } from "../support/permissions.js";

/**
 * The inventory's two promises, as properties over projects whose code reaches its files through
 * chains of any length: a hook script sourcing libraries, an MCP server importing modules, a package
 * script running a script. No file of the inventory can change without the folder becoming untrusted
 * and `audit --diff` naming it; no write of the model can change one.
 */

const it = test;
let shell: ShellParser;
beforeAll(async () => {
  shell = await loadShellParser();
});

/** A project whose hook sources `sources` libraries in a chain, whose server imports `imports` modules in a chain. */
function chains(dir: string, sources: number, imports: number): void {
  const write = (rel: string, content: string) => {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), content);
  };
  write("agent.md", "---\nallowed-tools: Read\n---\nMain.\n");
  const hook = (command: string) => ({ type: "command", command });
  write(
    ".claude/settings.json",
    JSON.stringify({
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [hook("sh hooks/guard.sh"), hook("npm run check")] }] },
    }),
  );
  write("hooks/guard.sh", `. hooks/lib0.sh\nexit 0\n`);
  for (let i = 0; i < sources; i++)
    write(
      `hooks/lib${i}.sh`,
      i + 1 < sources ? `source "$CLAUDE_PROJECT_DIR/hooks/lib${i + 1}.sh"\n` : "true\n",
    );
  write(".mcp.json", JSON.stringify({ mcpServers: { srv: { command: "node", args: ["server/main.mjs"] } } }));
  write("server/main.mjs", 'import "../lib/m0.mjs";\n');
  for (let i = 0; i < imports; i++)
    write(`lib/m${i}.mjs`, i + 1 < imports ? `export * from "./m${i + 1}.mjs";\n` : "export {};\n");
  write("package.json", JSON.stringify({ scripts: { check: "node scripts/check.cjs" } }));
  write("scripts/check.cjs", 'require("./util.cjs");\n');
  write("scripts/util.cjs", "module.exports = 1;\n");
  write("README.md", "# about\n");
}

const inputsOf = (dir: string, home: string) => {
  const loaded = loadProject(dir, {});
  return codeInputs(dir, loaded.definitions, loaded.plugins, projectInventory(dir, home));
};

describe("the inventory's promises", () => {
  it("no file of a trusted project's inventory changes without the folder untrusted and audit naming it", ({
    dir,
  }) => {
    let n = 0;
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 4 }),
        fc.nat(),
        fc.uint8Array({ minLength: 1, maxLength: 16 }),
        (sources, imports, pick, bytes) => {
          const project = path.join(dir, `p${n++}`);
          const home = path.join(project, "home");
          chains(project, sources, imports);
          const inventory = projectInventory(project, home);
          // Every file of the chains is in it: the hook's script and its libraries, the server and its modules, the package script's.
          expect(inventory.files.length).toBe(1 + sources + 1 + imports + 3);
          recordTrust(home, inventory);
          const before = inputsOf(project, home);
          const file = (inventory.files[pick % inventory.files.length] as { file: string }).file;
          appendFileSync(file, bytes);
          const state = trustState(project, home);
          expect(state.kind).toBe("untrusted");
          const rel = path.relative(inventory.dir, file);
          const changed = state.kind === "untrusted" ? (state.changes?.changed ?? []) : [];
          expect(changed.map((c) => c.file)).toContain(rel);
          const gains = diffCodeInputs(before, inputsOf(project, home));
          expect(gains.map((g) => path.relative(inventory.dir, g.input.file))).toContain(rel);
        },
      ),
      { numRuns: 25 },
    );
  });

  it("control: a README change leaves it trusted and audits clean", ({ dir }) => {
    const home = path.join(dir, "home");
    chains(dir, 2, 2);
    recordTrust(home, projectInventory(dir, home));
    const before = inputsOf(dir, home);
    appendFileSync(path.join(dir, "README.md"), "more\n");
    expect(trustState(dir, home).kind).toBe("trusted");
    expect(diffCodeInputs(before, inputsOf(dir, home))).toEqual([]);
  });

  it("nothing the model writes, by Write, Edit or a redirection, reaches a file of the inventory", ({
    dir,
  }) => {
    const home = path.join(dir, "home");
    chains(dir, 3, 3);
    const inventory = projectInventory(dir, home);
    const targets = [
      ...inventory.files.map((f) => f.file),
      path.join(dir, ".git/commondir"),
      path.join(dir, ".git/config"),
      path.join(dir, ".git"),
      path.join(home, ".claude/settings.json"),
      path.join(home, ".agentmd/trust.json"),
    ];
    const ctx = { specs: SPECS, projectDir: dir, home };
    const judge = (allow: string, tool: string, input: Record<string, unknown>) => {
      const allowEntries = entries(allow);
      const denies = protectedWriteDenies(protectedPaths(inventory, dir, []), allowEntries, ctx);
      const list = compileList(allowEntries, denies, ctx);
      return decide(list, { tool, input }, { specs: SPECS, cwd: dir, realPath: realPathOf, shell }).kind;
    };
    const allows = fc.constantFrom(
      "Write",
      "Write(**)",
      `Write(${dir}/**)`,
      "Edit",
      "Edit(**)",
      "Write(hooks/**)",
      "Write(lib/*)",
    );
    fc.assert(
      fc.property(
        fc.uniqueArray(allows, { minLength: 1, maxLength: 3 }),
        fc.constantFrom(...targets),
        fc.constantFrom("Write", "Edit", "redirect"),
        (allow, target, how) => {
          const rel = path.relative(dir, target);
          const call =
            how === "redirect"
              ? judge(`${allow.join(", ")}, Bash(echo:*)`, "Bash", { command: `echo x > ${rel}` })
              : judge(allow.join(", "), how, {
                  file_path: target,
                  content: "x",
                  old_string: "a",
                  new_string: "b",
                });
          expect(call).not.toBe("allowed");
        },
      ),
      { numRuns: 300 },
    );
    // Control: an ordinary file is writable under Write(**).
    expect(judge("Write(**)", "Write", { file_path: path.join(dir, "src/a.ts"), content: "x" })).toBe(
      "allowed",
    );
  });
});
