import path from "node:path";
import { describe, expect } from "vitest";
import { type Fixtures, test } from "../support/fixture.js";
import { REPO_ROOT } from "../support/fixtures.js";
import { modulesInLog } from "../support/loaded-modules.js";
import { call, text } from "../support/script.js";

/**
 * What a stream-json session (the Agent SDK's road: one process per `query()`) loads, read from a
 * trace of the modules Node resolves (never a time), as test/cli/startup-loads.test.ts reads a
 * command's.
 */
const FLAGS = ["--output-format", "stream-json", "--verbose", "--input-format", "stream-json"];
const USER = `${JSON.stringify({ type: "user", message: { role: "user", content: "go" }, parent_tool_use_id: null })}\n`;

/** The built CLI run with every module it loads traced; its result and those modules. */
async function traced(cli: Fixtures["cli"], dir: string, args: readonly string[], input?: string) {
  const log = path.join(dir, "imports.log");
  const preload = `--import=${path.join(REPO_ROOT, "test/support/log-imports.mjs")}`;
  const r = await cli(args, {
    ...(input && { input }),
    env: { NODE_OPTIONS: preload, AGENTMD_IMPORTS_LOG: log },
  });
  return { r, mods: modulesInLog(log) };
}

describe("a stream-json session loads what its turns run", () => {
  test("a Bash turn and an answer load the Messages client and the shell, not the terminal's rendering nor the API's other resources", async ({
    cli,
    dir,
    fake,
    project,
  }) => {
    project({ "agent.md": "---\nallowed-tools: Bash\n---\nYou run commands.\n" });
    fake.push(call("Bash", { command: "true" }), text("done"));
    const { r, mods } = await traced(cli, dir, FLAGS, USER);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('"result":"done"');
    // What the turns ran: the session, the Messages resource, the shell's grammar.
    expect(mods).toContain("src/cli/stream-json/sdk-session.ts");
    expect(mods).toContain("node_modules/@anthropic-ai/sdk/resources/messages/messages.mjs");
    expect(mods.some((m) => m.startsWith("node_modules/web-tree-sitter/"))).toBe(true);
    // What it never uses.
    const unused = mods.filter(
      (m) =>
        m.startsWith("node_modules/highlight.js/") ||
        m.startsWith("node_modules/marked/") ||
        m.startsWith("src/cli/terminal/render") ||
        m.startsWith("src/cli/terminal/markdown") ||
        m.startsWith("src/cli/terminal/progress") ||
        m === "src/cli/commands/run-command.ts" ||
        // Node's modules a run without the sandbox has no use for (the sandbox's domain proxy),
        // and crypto's whole namespace (its WebCrypto half) where a few functions are required.
        m === "node:http" ||
        m === "node:net" ||
        m === "node:crypto" ||
        // The SDK's other resources (a few of their error classes are kept, their code is not).
        m.startsWith("node_modules/@anthropic-ai/sdk/resources/beta/messages/") ||
        m.startsWith("node_modules/@anthropic-ai/sdk/resources/beta/agents/") ||
        m.startsWith("node_modules/@anthropic-ai/sdk/lib/BetaMessageStream") ||
        m.startsWith("node_modules/@anthropic-ai/sdk/resources/models") ||
        m.startsWith("node_modules/@anthropic-ai/sdk/resources/completions"),
    );
    expect(unused).toEqual([]);
  });

  test("-p into a pipe prints the answer as written and loads neither the Markdown parser nor the highlighter", async ({
    cli,
    dir,
    fake,
    project,
  }) => {
    project({ "agent.md": "---\nallowed-tools: Bash\n---\nYou run commands.\n" });
    fake.push(call("Bash", { command: "true" }), text("**done**\n\n```js\nlet x = 1;\n```"));
    const { r, mods } = await traced(cli, dir, ["-p", "go"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("**done**\n\n```js\nlet x = 1;\n```");
    expect(mods).toContain("src/cli/commands/run-command.ts");
    expect(
      mods.filter(
        (m) =>
          m.startsWith("node_modules/highlight.js/") ||
          m.startsWith("node_modules/marked/") ||
          m.startsWith("src/cli/terminal/markdown") ||
          m.startsWith("src/cli/terminal/highlight"),
      ),
    ).toEqual([]);
  });
});
