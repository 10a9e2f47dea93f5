import path from "node:path";
import { describe, expect } from "vitest";
import type { CliRun } from "../support/cli.js";
import type { FakeAnthropic } from "../support/fake-anthropic.js";
import { test } from "../support/fixture.js";
import { jsonLines } from "../support/runs.js";
import { call, resultsSent, resultText, text } from "../support/script.js";
import { writeFiles } from "../support/tools.js";

/**
 * An `@import` in memory hands the model a file as surely as its own Read would: one outside the
 * project's working folders is given only when the run could read it without asking, except the
 * imports of the user's own `~/.claude/CLAUDE.md`. The built CLI against the fake server, with the
 * project and the home folder side by side.
 */
const NOTES = "PRIVATE-NOTE-42";
const systemOf = (fake: FakeAnthropic) =>
  ((fake.requests[0]?.body.system ?? []) as { text: string }[]).map((b) => b.text).join("\n");
const warnings = (r: CliRun) =>
  jsonLines(r.stdout)
    .filter((e) => e.type === "warning")
    .map((e) => (e as { message: string }).message);

describe("@imports outside the working folders", () => {
  test("with no agent.md, CLAUDE.md's @~/private-notes.txt is not given, as the model's own Read of it is refused", async ({
    dir,
    env,
    fake,
    cli,
  }) => {
    const proj = path.join(dir, "proj");
    const home = env.HOME as string;
    writeFiles(home, { "private-notes.txt": `${NOTES}\n` });
    writeFiles(proj, { "CLAUDE.md": "Project rules. See @~/private-notes.txt\n" });
    const notes = path.join(home, "private-notes.txt");
    fake.push(call("Read", { file_path: notes }), text("done"));
    const r = await cli(["run", "--output", "stream-json", "hi"], { cwd: proj });
    expect(r.code).toBe(0);
    expect(systemOf(fake)).toContain("Project rules.");
    expect(systemOf(fake)).not.toContain(NOTES);
    expect(JSON.stringify(fake.requests.map((q) => q.body.messages))).not.toContain(NOTES);
    expect(warnings(r)).toContain(
      `memory not given: ${notes}: imported by ${path.join(proj, "CLAUDE.md")}, outside the working folders, and this run may not read it`,
    );
    const own = resultsSent(fake, 1)[0];
    expect(own?.is_error).toBe(true);
    expect(resultText(own)).toContain("needs approval");
  });

  test("an import of the user's own ~/.claude/CLAUDE.md is given", async ({ dir, env, fake, cli }) => {
    const proj = path.join(dir, "proj");
    const home = env.HOME as string;
    writeFiles(home, {
      "private-notes.txt": `${NOTES}\n`,
      ".claude/CLAUDE.md": "User rules. See @~/private-notes.txt\n",
    });
    writeFiles(proj, { "CLAUDE.md": "Project rules.\n" });
    fake.push(text("done"));
    const r = await cli(["run", "--output", "stream-json", "hi"], { cwd: proj });
    expect(r.code).toBe(0);
    expect(systemOf(fake)).toContain(NOTES);
    expect(warnings(r).filter((w) => w.startsWith("memory not given"))).toEqual([]);
  });

  test("a run whose list lets it Read the file gets the import, as it could read it", async ({
    dir,
    env,
    fake,
    cli,
  }) => {
    const proj = path.join(dir, "proj");
    writeFiles(env.HOME as string, { "private-notes.txt": `${NOTES}\n` });
    writeFiles(proj, {
      "agent.md": "---\nallowed-tools: Read\n---\nMain.\n",
      "CLAUDE.md": "Project rules. See @~/private-notes.txt\n",
    });
    fake.push(text("done"));
    expect((await cli(["-p", "hi"], { cwd: proj })).code).toBe(0);
    expect(systemOf(fake)).toContain(NOTES);
  });
});
