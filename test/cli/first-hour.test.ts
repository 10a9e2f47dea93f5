import { afterEach, describe, expect, it } from "vitest";
import { runBin } from "../support/cli.js";
import { tempDir } from "../support/fixtures.js";
import { writeFiles } from "../support/tools.js";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function project(files: Record<string, string>): string {
  const { dir, cleanup } = tempDir();
  cleanups.push(cleanup);
  writeFiles(dir, files);
  return dir;
}

describe("agentmd tools lists what a run offers", () => {
  it("does not list a tool a list names when no tool of a run has that name", () => {
    const cwd = project({
      "agent.md": "---\nallowed-tools: Read, NotebookRead, AskUserQuestion, Bash(git:*)\n---\nYou help.\n",
    });
    const r = runBin(["tools"], { cwd, env: { HOME: cwd } });
    expect(r.code).toBe(0);
    const offered = r.stdout.slice(
      r.stdout.indexOf("offered to the model:"),
      r.stdout.indexOf("removed along"),
    );
    expect(offered).toMatch(/^ {2}Read /m);
    expect(offered).not.toContain("NotebookRead");
    expect(offered).not.toContain("AskUserQuestion");
    expect(r.stdout).toContain(
      "named in a list, but no tool of a run has the name: NotebookRead, AskUserQuestion\n",
    );
    const json = JSON.parse(runBin(["tools", "--json"], { cwd, env: { HOME: cwd } }).stdout);
    expect(json.offered.map((t: { name: string }) => t.name)).toEqual(["Read", "Bash"]);
    expect(json.notProvided).toEqual(["NotebookRead", "AskUserQuestion"]);
  });
});
