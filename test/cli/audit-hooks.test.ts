import path from "node:path";
import { describe, expect } from "vitest";
import { runBin } from "../support/cli.js";
import { it } from "../support/fixture.js";

describe("agentmd audit: which hooks guard which entry points", () => {
  it("lists each entry point's hooks: event, matcher, command, where written, the runs it fires in", ({
    dir,
    project,
  }) => {
    project({
      "agent.md":
        "---\nallowed-tools: Bash, Task\nhooks:\n  Stop:\n    - command: ./tests-pass.sh\n---\nMain.",
      "agents/helper.md":
        "---\nname: helper\ndescription: helps\ntools: Bash\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      command: ./helper-guard.sh\n---\nHelp.",
      ".claude/settings.json": JSON.stringify({
        hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "./guard.sh" }] }] },
      }),
    });
    const env = { HOME: path.join(dir, "home") };
    const text = runBin(["audit", dir], { cwd: dir, env });
    expect(text.code).toBe(0);
    const lines = text.stdout.split("\n");
    const main = lines.slice(lines.findIndex((l) => l.startsWith("main  ")));
    const hooks = main.slice(main.indexOf("  hooks:") + 1, main.indexOf("  hooks:") + 4).map((l) => l.trim());
    expect(hooks).toEqual([
      "PreToolUse(Bash): ./guard.sh  [project] in main, agent:helper",
      "Stop: ./tests-pass.sh  [agent.md] in main, agent:helper",
      "PreToolUse(Bash): ./helper-guard.sh  [agent:helper] in agent:helper",
    ]);
    const json = JSON.parse(runBin(["audit", dir, "--json"], { cwd: dir, env }).stdout);
    const entry = json.entryPoints.find((e: { name: string }) => e.name === "main");
    expect(entry.hooks).toContainEqual({
      event: "PreToolUse",
      matcher: "Bash",
      runs: "./guard.sh",
      origin: "project",
      in: ["main", "agent:helper"],
    });
  });
});
