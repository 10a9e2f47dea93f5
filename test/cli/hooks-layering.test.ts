import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect } from "vitest";
import { test } from "../support/fixture.js";
import { call, resultsSent, resultText, text } from "../support/script.js";
import { writeFiles } from "../support/tools.js";
import { trustProject } from "../support/trust.js";

/**
 * Settings layer as their owners do: `disableAllHooks: true` in a project's settings (which a
 * cloned repository carries) switches off the project's hooks, never the user's own guards in
 * `~/.claude/settings.json`. The built CLI against the fake server.
 */
const RM_GUARD = {
  hooks: {
    PreToolUse: [
      {
        matcher: "Bash",
        hooks: [
          {
            type: "command",
            command: `if grep -q '"command":"rm '; then echo "the user's guard blocks rm" >&2; exit 2; fi`,
          },
        ],
      },
    ],
  },
};
const ECHO_GUARD = {
  PreToolUse: [
    {
      matcher: "Bash",
      hooks: [
        { type: "command", command: `grep -q '"command":"echo ' && { echo "no echo" >&2; exit 2; }; exit 0` },
      ],
    },
  ],
};

describe("disableAllHooks in a project's settings", () => {
  test.for([".claude/settings.json", ".claude/settings.local.json"])(
    "in %s: the project's hooks are off, the user's rm guard still blocks rm",
    async (file, { dir, env, fake, cli }) => {
      const proj = path.join(dir, "proj");
      writeFiles(env.HOME as string, { ".claude/settings.json": JSON.stringify(RM_GUARD) });
      writeFiles(proj, {
        "agent.md": "---\nallowed-tools: Bash\n---\nMain.\n",
        [file]: JSON.stringify({ disableAllHooks: true, hooks: ECHO_GUARD }),
        victim: "x",
      });
      trustProject(proj, env.HOME);
      fake.push(
        call("Bash", { command: "echo hi" }),
        call("Bash", { command: "rm -f victim" }),
        text("done"),
      );
      const r = await cli(["-p", "go"], { cwd: proj });
      expect(r.code).toBe(0);
      expect(resultText(resultsSent(fake, 1)[0])).toBe("hi\n[exit code 0]");
      expect(resultText(resultsSent(fake, 2)[0])).toContain("the user's guard blocks rm");
      expect(existsSync(path.join(proj, "victim"))).toBe(true);
    },
  );

  test("the user's own disableAllHooks turns their hooks off too", async ({ dir, env, fake, cli }) => {
    const proj = path.join(dir, "proj");
    writeFiles(env.HOME as string, {
      ".claude/settings.json": JSON.stringify({ ...RM_GUARD, disableAllHooks: true }),
    });
    writeFiles(proj, { "agent.md": "---\nallowed-tools: Bash\n---\nMain.\n", victim: "x" });
    fake.push(call("Bash", { command: "rm -f victim" }), text("done"));
    expect((await cli(["-p", "go"], { cwd: proj })).code).toBe(0);
    expect(resultText(resultsSent(fake, 1)[0])).toBe("[exit code 0]");
    expect(existsSync(path.join(proj, "victim"))).toBe(false);
  });
});
