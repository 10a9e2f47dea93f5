import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect } from "vitest";
import { modelNameProblem } from "../../src/model/models.js";
import { it } from "../support/fixture.js";
import { writeFiles } from "../support/tools.js";

it.beforeEach(({ dir }) => {
  writeFiles(dir, {
    "agent.md": "---\nallowed-tools: Read\n---\nBe brief.\n",
    "commands/review.md": "---\ndescription: review\n---\nReview $ARGUMENTS.\n",
  });
});

const sessions = (dir: string) => {
  const d = path.join(dir, ".agentmd", "sessions");
  return existsSync(d) ? readdirSync(d) : [];
};

/**
 * Typos the CLI refuses: the first crosses the built CLI (and chat's, with piped input); the other
 * rows run the CLI's main() in this process.
 */
describe("typos the CLI refuses before anything is sent", () => {
  it("run '/revew x' when /review exists: usage error 2, did-you-mean, no request, no session", async ({
    dir,
    fake,
    cli,
  }) => {
    const r = await cli(["run", "/revew x"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown command or skill /revew; did you mean /review?");
    expect(r.stdout).not.toContain("resume with");
    expect(fake.requests).toHaveLength(0);
    expect(sessions(dir)).toEqual([]);
  });

  it("a known command still runs", async ({ fake, main }) => {
    fake.push({ kind: "message", content: [{ type: "text", text: "looks fine" }] });
    const r = await main(["run", "/review x"]);
    expect(r.code).toBe(0);
    expect(fake.requests).toHaveLength(1);
  });

  it("--model sonet is refused with the nearest alias, nothing sent", async ({ fake, main }) => {
    const r = await main(["run", "--model", "sonet", "hi"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--model: 'sonet' is not a model alias or id; did you mean 'sonnet'?");
    expect(fake.requests).toHaveLength(0);
  });

  it("a base URL without a scheme is a clear error, with no request and no retry", async ({
    dir,
    env,
    main,
  }) => {
    const r = await main(["run", "hi"], { env: { ...env, ANTHROPIC_BASE_URL: "localhost:8080" } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("ANTHROPIC_BASE_URL 'localhost:8080' is not an http:// or https:// URL");
    expect(r.stderr).not.toMatch(/retrying/);
    expect(sessions(dir)).toEqual([]);
  });

  it("a base URL ending in /v1 says to drop it, before any request", async ({ fake, env, main }) => {
    const r = await main(["run", "hi"], { env: { ...env, ANTHROPIC_BASE_URL: `${fake.url}/v1` } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`ends in /v1, but the client adds /v1/messages itself: use '${fake.url}'`);
    expect(fake.requests).toHaveLength(0);
  });
});

describe("the REPL's /help and a mistyped command", () => {
  it("/help lists the REPL's commands and the project's; /revew says did-you-mean and sends nothing", async ({
    fake,
    cli,
  }) => {
    const r = await cli(["chat"], { input: "/help\n/revew x\n/model sonet\n" });
    expect(r.stdout).toContain("/compact");
    expect(r.stdout).toMatch(/commands:\n {2}\/review — review/);
    expect(r.stdout).toContain("unknown command or skill /revew; did you mean /review?");
    expect(r.stdout).toContain("'sonet' is not a model alias or id; did you mean 'sonnet'?");
    expect(fake.requests).toHaveLength(0);
  });
});

describe("modelNameProblem", () => {
  it.each([
    ["sonnet", false],
    ["opus", false],
    ["inherit", false],
    ["claude-sonnet-4-5", false],
    ["claude-3-5-haiku-20241022", false],
    ["us.anthropic.claude-sonnet-4-5-v1:0", false],
    ["anthropic/claude-sonnet-4-5", false],
    ["claude-opus-4-1@20250805", false],
    ["sonet", true],
    ["hiaku", true],
    ["gpt4", true],
  ])("%s refused: %s", (name, refused) => {
    expect(modelNameProblem(name) !== undefined).toBe(refused);
  });
});
