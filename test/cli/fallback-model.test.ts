import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect } from "vitest";
import { type CliRun, runCli } from "../support/cli.js";
import type { Scripted } from "../support/fake-anthropic.js";
import { test } from "../support/fixture.js";
import { text } from "../support/script.js";
import { writeFiles } from "../support/tools.js";

/** `--fallback-model` and `fallbackModel:`: an overloaded model's request goes to the fallback. */
const it = test.extend<{ run: (args: string[]) => Promise<CliRun> }>({
  run: async ({ dir, env }, use) => {
    await use((args) => runCli(args, { cwd: dir, env: { ...env } }));
  },
});

const overloaded: Scripted = {
  kind: "http-error",
  status: 529,
  errorType: "overloaded_error",
  message: "Overloaded",
  headers: { "retry-after-ms": "0" },
};

it.beforeEach(({ dir }) => {
  writeFiles(dir, { "agent.md": "---\nallowed-tools: Read\nmodel: opus\n---\nBe brief.\n" });
});

describe("fallback models", () => {
  it("after the primary's retries, the request goes to --fallback-model and the run succeeds; a replay is exact", async ({
    dir,
    fake,
    run,
  }) => {
    fake.push(overloaded, overloaded, overloaded, text("answered by the fallback"));
    const r = await run(["-p", "--fallback-model", "sonnet", "--record", "rec.jsonl", "hi"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("answered by the fallback\n");
    expect(fake.requests.map((q) => q.body.model)).toEqual([
      "claude-opus-5-5",
      "claude-opus-5-5",
      "claude-opus-5-5",
      "claude-sonnet-5-5",
    ]);
    const sessions = path.join(dir, ".agentmd/sessions");
    const transcript = readFileSync(path.join(sessions, readdirSync(sessions)[0] as string), "utf8");
    expect(transcript).toMatch(/claude-opus-5-5 is overloaded.*fallback model claude-sonnet-5-5/);
    const replayed = await run(["-p", "--fallback-model", "sonnet", "--replay", "rec.jsonl", "hi"]);
    expect(replayed.stderr).toBe("");
    expect(replayed.stdout).toBe("answered by the fallback\n");
    expect(fake.requests).toHaveLength(4);
  });

  it("agent.md's fallbackModel is a list, tried in order", async ({ dir, fake, run }) => {
    writeFiles(dir, {
      "agent.md": "---\nallowed-tools: Read\nmodel: opus\nfallbackModel: [sonnet, haiku]\n---\nBe brief.\n",
    });
    fake.push(overloaded, overloaded, overloaded, overloaded, overloaded, overloaded, text("haiku here"));
    const r = await run(["-p", "hi"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("haiku here\n");
    expect(fake.requests.at(-1)?.body.model).toBe("claude-haiku-5-5");
  });

  it("without a fallback, an overloaded model ends the run with the error", async ({ fake, run }) => {
    fake.push(overloaded, overloaded, overloaded);
    const r = await run(["-p", "hi"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Overloaded/);
    expect(fake.requests).toHaveLength(3);
  });
});
