import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runBin } from "../support/cli.js";
import { REPO_ROOT, tempDir } from "../support/fixtures.js";
import { modulesInLog } from "../support/loaded-modules.js";
import { writeFiles } from "../support/tools.js";

/**
 * What each command of the built CLI loads, read from a trace of the modules Node resolves (never
 * a time): a bundle chunk counts as the source modules esbuild wrote into it (its `// path`
 * comments), any other file as its path. `--version` and `--help` load nothing but the entry's few
 * small modules; `check`, `tools` and `audit` load the loader and permissions, not the model
 * client, MCP, the queue, OpenTelemetry or the terminal UI.
 */
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function modulesLoaded(argv: string[], files: Record<string, string> = {}): string[] {
  const t = tempDir();
  cleanups.push(t.cleanup);
  writeFiles(t.dir, files);
  const log = path.join(t.dir, "imports.log");
  const preload = `--import=${path.join(REPO_ROOT, "test/support/log-imports.mjs")}`;
  const r = runBin(argv, { cwd: t.dir, env: { NODE_OPTIONS: preload, AGENTMD_IMPORTS_LOG: log } });
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  return modulesInLog(log);
}

/** Node's own modules a command that runs nothing has no use for. */
const NODE_WORK_ONLY = ["node:child_process", "node:crypto", "node:fs/promises"];

const PROJECT = {
  "agent.md":
    "---\nname: main\ndescription: Answers questions.\nallowed-tools: Read, Grep, Bash(git status:*)\n---\nYou answer.\n",
};

/**
 * What only a run needs: the model client (agentmd's and the SDK's; the SDK's error classes are
 * small and the model seam's own), MCP's client, the queue, tracing, the terminal UI, the loop and
 * the runner's core.
 */
const RUN_ONLY = [
  "node_modules/@anthropic-ai/sdk/client",
  "node_modules/@anthropic-ai/sdk/resources/",
  "node_modules/@anthropic-ai/bedrock-sdk/",
  "node_modules/@anthropic-ai/vertex-sdk/",
  "node_modules/@anthropic-ai/foundry-sdk/",
  "node_modules/@modelcontextprotocol/",
  "node_modules/@opentelemetry/",
  "node_modules/bullmq/",
  "node_modules/ioredis/",
  "node_modules/highlight.js/",
  "node_modules/marked/",
  "src/mcp/client",
  "src/batch/",
  "src/tracing/",
  "src/loop/run-loop",
  "src/model/anthropic.ts",
  "src/mcp/mcp-hub.ts",
  "src/invocation/core.ts",
  "src/cli/terminal/render.ts",
  "src/cli/terminal/repl.ts",
];
/** What the built-in tools run with, and YAML readers other than the loader's. */
const TOOL_INNARDS = [
  "node_modules/iconv-lite/",
  "node_modules/entities/",
  "node_modules/ignore/",
  "node_modules/turndown",
  "node_modules/gray-matter/",
  "node_modules/js-yaml/",
  "src/tools/builtin/html-markdown.ts",
];
const runOnly = (mods: string[]) => mods.filter((m) => RUN_ONLY.some((prefix) => m.startsWith(prefix)));

describe("start-up loads what the command runs", () => {
  it.each([["--version"], ["--help"], ["-v"], ["-h"], ["help"]])(
    "%s loads the launcher and what it prints, nothing else",
    (flag) => {
      expect(modulesLoaded([flag])).toEqual(["bin/agentmd.js", "src/cli/help.ts", "src/cli/version.ts"]);
    },
  );

  it("check of a small project loads the loader and permissions, nothing only a run needs, and not the bash grammar", () => {
    const mods = modulesLoaded(["check"], PROJECT);
    // Its own file (dist/bundle/check.cjs), not the whole CLI's entry.
    expect(mods).toContain("src/cli/check-entry.ts");
    expect(mods).not.toContain("src/cli/main.ts");
    expect(mods).not.toContain("src/cli/help.ts");
    expect(mods).toContain("src/definitions/load-definition.ts");
    expect(mods).toContain("src/permissions/permission-list.ts");
    expect(runOnly(mods)).toEqual([]);
    expect(mods.filter((m) => m.includes("tree-sitter"))).toEqual([]);
    // Tool names and schemas, not what the tools run with; no loop; one YAML reader.
    expect(mods.filter((m) => TOOL_INNARDS.some((prefix) => m.startsWith(prefix)))).toEqual([]);
    expect(mods.filter((m) => m.startsWith("src/loop/"))).toEqual([]);
    // Nor Node's modules that only a tool's work needs (they load net, streams, all of crypto),
    // neither imported nor required.
    const node = mods.map((m) => m.replace(/ \(required\)$/, ""));
    expect(node.filter((m) => NODE_WORK_ONLY.includes(m))).toEqual([]);
    expect(node).toContain("node:fs");
  });

  it("the precompiled surface validators need no package and leave hooks to checkHooks", () => {
    const code = readFileSync(path.join(REPO_ROOT, "dist/bundle/surface-validators.cjs"), "utf8");
    expect(code).not.toMatch(/require\(/);
    expect(code).not.toContain("PreToolUse");
  });

  it("check loads the bash grammar when a command's body has a !command to judge", () => {
    const mods = modulesLoaded(["check"], {
      ...PROJECT,
      "commands/status.md":
        "---\ndescription: Status.\nallowed-tools: Bash(git status:*)\n---\n!`git status`\n",
    });
    expect(mods.some((m) => m.startsWith("node_modules/web-tree-sitter/"))).toBe(true);
    expect(runOnly(mods)).toEqual([]);
  });

  it.each([
    [["tools"]],
    [["tools", "--try", "Bash", '{"command":"git status && git status --short"}']],
    [["audit"]],
  ])("%j loads nothing only a run needs", (argv) => {
    expect(runOnly(modulesLoaded(argv, PROJECT))).toEqual([]);
  });
});
