import { readdirSync } from "node:fs";
import path from "node:path";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { describe, expect } from "vitest";
import { type CliRun, runCli } from "../support/cli.js";
import {
  type RecordedRequest,
  type Scripted,
  signatureOf,
  type UsageSpec,
} from "../support/fake-anthropic.js";
import { test } from "../support/fixture.js";
import { call, text, use } from "../support/script.js";
import { writeFiles } from "../support/tools.js";

/**
 * `effort:` and `thinking:` (and `--effort`, `--thinking`, `--max-thinking-tokens`): what each
 * request carries, per run and per model, against the fake API over real HTTP. What is not sent is
 * a warning of the run (shown by `-p --verbose`, as every warning).
 */
const it = test.extend<{ run: (args: string[]) => Promise<CliRun> }>({
  run: async ({ dir, env }, use) => {
    await use((args) => runCli(args, { cwd: dir, env: { ...env } }));
  },
});

type Body = Record<string, unknown>;
const bodyOf = (q: RecordedRequest | undefined) => q?.body as unknown as Body;
const effortOf = (q: RecordedRequest | undefined) =>
  (bodyOf(q)?.output_config as { effort?: string } | undefined)?.effort;
const betaOf = (q: RecordedRequest | undefined) => q?.headers["anthropic-beta"];
/** The request a run sent, told apart by the system prompt its definition gave. */
const bySystem = (requests: readonly RecordedRequest[], marker: string) =>
  requests.filter((q) => JSON.stringify(bodyOf(q).system ?? "").includes(marker));

/** A response that thinks, then calls `name`. */
const thinkThenCall = (thinking: string, name: string, input: unknown, usage?: UsageSpec) =>
  ({
    kind: "message",
    content: [{ type: "thinking", thinking }, use(name, input)],
    ...(usage && { usage }),
  }) as Scripted;

const assistantTurns = (q: RecordedRequest | undefined) =>
  ((bodyOf(q)?.messages ?? []) as MessageParam[]).filter((m) => m.role === "assistant");

describe("effort", () => {
  it("the main agent and each subagent send their own effort, with the beta header; a subagent without one sends agent.md's", async ({
    dir,
    fake,
    run,
  }) => {
    writeFiles(dir, {
      "agent.md": "---\nallowed-tools: Read, Task\nmodel: opus\neffort: low\n---\nMAIN agent.\n",
      "agents/deep.md":
        "---\nname: deep\ndescription: Thinks hard.\ntools: Read\neffort: max\n---\nDEEP agent.\n",
      "agents/plain.md": "---\nname: plain\ndescription: Plain.\ntools: Read\n---\nPLAIN agent.\n",
    });
    fake.push(
      call("Task", { subagent_type: "deep", description: "d", prompt: "think" }),
      text("deep done"),
      call("Task", { subagent_type: "plain", description: "p", prompt: "look" }),
      text("plain done"),
      text("all done"),
    );
    const r = await run(["-p", "go"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const main = bySystem(fake.requests, "MAIN agent");
    const deep = bySystem(fake.requests, "DEEP agent");
    const plain = bySystem(fake.requests, "PLAIN agent");
    expect([main.length, deep.length, plain.length]).toEqual([3, 1, 1]);
    expect(main.map(effortOf)).toEqual(["low", "low", "low"]);
    expect(deep.map(effortOf)).toEqual(["max"]);
    expect(plain.map(effortOf)).toEqual(["low"]);
    for (const q of fake.requests) expect(betaOf(q)).toBe("effort-2025-11-24");
  });

  it("--effort wins over agent.md's; without any effort nothing is sent and no beta header", async ({
    dir,
    fake,
    run,
  }) => {
    writeFiles(dir, { "agent.md": "---\nallowed-tools: Read\nmodel: sonnet\neffort: low\n---\nBe brief.\n" });
    fake.push(text("a"), text("b"));
    expect((await run(["-p", "--effort=xhigh", "x"])).code).toBe(0);
    writeFiles(dir, { "agent.md": "---\nallowed-tools: Read\nmodel: sonnet\n---\nBe brief.\n" });
    expect((await run(["-p", "x"])).code).toBe(0);
    expect(effortOf(fake.requests[0])).toBe("xhigh");
    expect(bodyOf(fake.requests[1]).output_config).toBeUndefined();
    expect(betaOf(fake.requests[1])).toBeUndefined();
  });

  it("a model agentmd does not know gets neither key, and the run says so naming model and keys", async ({
    fake,
    run,
  }) => {
    fake.push(text("ok"));
    const r = await run([
      "-p",
      "--verbose",
      "--model",
      "claude-custom-7",
      "--effort",
      "high",
      "--thinking",
      "4096",
      "x",
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /effort and thinking not sent: agentmd does not know whether the model claude-custom-7 takes them/,
    );
    const body = bodyOf(fake.requests[0]);
    expect(body.output_config).toBeUndefined();
    expect(body.thinking).toBeUndefined();
    expect(body.max_tokens).toBe(8192);
    expect(betaOf(fake.requests[0])).toBeUndefined();
  });

  it("a level the model does not take is left out with a notice (claude-opus-4-5 has no max)", async ({
    fake,
    run,
  }) => {
    fake.push(text("ok"));
    const r = await run(["-p", "--verbose", "--model", "claude-opus-4-5-20251101", "--effort", "max", "x"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /effort 'max' not sent: the model claude-opus-4-5-20251101 takes low, medium, high/,
    );
    expect(bodyOf(fake.requests[0]).output_config).toBeUndefined();
  });

  it("a misspelled level is a usage error; nothing is sent", async ({ fake, run }) => {
    const r = await run(["-p", "--effort", "hihg", "x"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /--effort must be low, medium, high, xhigh, max, not 'hihg'; did you mean 'high'\?/,
    );
    expect(fake.requests).toHaveLength(0);
  });
});

describe("thinking", () => {
  const project = {
    "agent.md": "---\nallowed-tools: Read\nmodel: claude-sonnet-4-5\nthinking: 2048\n---\nBe brief.\n",
    "a.txt": "alpha\n",
  };

  it("a budget is sent as enabled with budget_tokens under max_tokens; the thinking block goes back unchanged with its tool call", async ({
    dir,
    fake,
    run,
  }) => {
    writeFiles(dir, project);
    fake.push(thinkThenCall("I should read a.txt", "Read", { file_path: "a.txt" }), text("alpha it is"));
    const r = await run(["-p", "read it"]);
    // The fake refuses, as the API does, a turn whose thinking block is missing or changed.
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("alpha it is\n");
    const [first, second] = fake.requests;
    expect(bodyOf(first).thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
    expect(bodyOf(first).max_tokens).toBe(8192);
    expect(assistantTurns(second)[0]?.content).toEqual([
      { type: "thinking", thinking: "I should read a.txt", signature: signatureOf("I should read a.txt") },
      expect.objectContaining({ type: "tool_use", name: "Read" }),
    ]);
  });

  it("takes the API's own objects: {type: enabled, budget_tokens: N}, {type: adaptive}, {type: disabled}", async ({
    dir,
    fake,
    run,
  }) => {
    writeFiles(dir, {
      "agent.md":
        "---\nallowed-tools: Read, Task\nmodel: claude-sonnet-4-6\nthinking: {type: enabled, budget_tokens: 8000}\n---\nMAIN agent.\n",
      "agents/quick.md":
        "---\nname: quick\ndescription: Quick.\ntools: Read\nthinking:\n  type: adaptive\n---\nQUICK agent.\n",
      "agents/plain.md":
        "---\nname: plain\ndescription: Plain.\ntools: Read\nthinking: {type: disabled}\n---\nPLAIN agent.\n",
    });
    expect((await run(["check"])).code).toBe(0);
    fake.push(
      thinkThenCall("ask quick", "Task", { subagent_type: "quick", description: "q", prompt: "go" }),
      text("quick done"),
      thinkThenCall("ask plain", "Task", { subagent_type: "plain", description: "p", prompt: "go" }),
      text("plain done"),
      text("all done"),
    );
    const r = await run(["-p", "go"]);
    expect(r.stderr).toBe("");
    expect(bodyOf(bySystem(fake.requests, "MAIN agent")[0]).thinking).toEqual({
      type: "enabled",
      budget_tokens: 8000,
    });
    expect(bodyOf(bySystem(fake.requests, "QUICK agent")[0]).thinking).toEqual({ type: "adaptive" });
    expect(bodyOf(bySystem(fake.requests, "PLAIN agent")[0]).thinking).toEqual({ type: "disabled" });
  });

  it("an object that is not one of the API's is an error that says what it takes", async ({ dir, run }) => {
    writeFiles(dir, {
      "agent.md": "---\nallowed-tools: Read\nthinking: {type: enabled}\n---\nx\n",
      "agents/odd.md": "---\nname: odd\ndescription: Odd.\ntools: Read\nthinking: {type: on}\n---\nx\n",
    });
    const r = await run(["check"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /agent\.md:3:11: error: 'thinking' \{type: enabled\} needs budget_tokens, a whole number of tokens \(at least 1024\), not none \[value-type\]/,
    );
    expect(r.stdout).toMatch(
      /agents\/odd\.md:5:11: error: 'thinking' type must be enabled, adaptive or disabled, not "on" \[value-type\]/,
    );
    expect(r.stdout.match(/: error:/g)).toHaveLength(2);
  });

  it("redacted thinking goes back as it came", async ({ dir, fake, run }) => {
    writeFiles(dir, project);
    fake.push(
      {
        kind: "message",
        content: [{ type: "redacted_thinking", data: "ENCRYPTED" }, use("Read", { file_path: "a.txt" })],
      },
      text("done"),
    );
    expect((await run(["-p", "read it"])).code).toBe(0);
    expect(assistantTurns(fake.requests[1])[0]?.content).toEqual([
      { type: "redacted_thinking", data: "ENCRYPTED" },
      expect.objectContaining({ type: "tool_use" }),
    ]);
  });

  it("a resumed session sends its thinking blocks back; a replay of the recording is exact", async ({
    dir,
    fake,
    run,
  }) => {
    writeFiles(dir, project);
    fake.push(thinkThenCall("read first", "Read", { file_path: "a.txt" }), text("one"));
    const first = await run(["-p", "--record", "rec.jsonl", "--output-format", "json", "read it"]);
    expect(first.code).toBe(0);
    const sessionId = (JSON.parse(first.stdout) as { session_id: string }).session_id;
    fake.push(thinkThenCall("again", "Read", { file_path: "a.txt" }), text("two"));
    const resumed = await run(["-p", "--resume", sessionId, "once more"]);
    expect(resumed.stderr).toBe("");
    expect(resumed.stdout).toBe("two\n");
    const history = assistantTurns(fake.requests[2]);
    expect(history[0]?.content).toContainEqual({
      type: "thinking",
      thinking: "read first",
      signature: signatureOf("read first"),
    });
    const replayed = await run(["-p", "--replay", "rec.jsonl", "read it"]);
    expect(replayed.stderr).toBe("");
    expect(replayed.stdout).toBe("one\n");
    expect(fake.requests).toHaveLength(4);
    expect(readdirSync(path.join(dir, ".agentmd/sessions")).length).toBeGreaterThan(0);
  });

  it("a budget that does not fit under maxTokens raises max_tokens to the budget plus maxTokens, saying so", async ({
    dir,
    fake,
    run,
  }) => {
    writeFiles(dir, project);
    fake.push(text("ok"));
    const r = await run(["-p", "--verbose", "--thinking", "10000", "x"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /thinking budget of 10000 tokens does not fit under max_tokens 8192: requests to claude-sonnet-4-5 carry max_tokens 18192/,
    );
    expect(bodyOf(fake.requests[0])).toMatchObject({
      max_tokens: 18192,
      thinking: { type: "enabled", budget_tokens: 10000 },
    });
  });

  it("a model that takes no budget gets none (a notice says what it takes); adaptive is sent where taken", async ({
    dir,
    fake,
    run,
  }) => {
    writeFiles(dir, project);
    fake.push(text("a"), text("b"));
    const r = await run(["-p", "--verbose", "--model", "opus", "--max-thinking-tokens", "4096", "x"]);
    expect(r.stderr).toMatch(
      /a thinking budget of 4096 tokens not sent: the model claude-opus-5-5 takes 'adaptive'; effort steers how much it thinks/,
    );
    expect(bodyOf(fake.requests[0]).thinking).toBeUndefined();
    expect((await run(["-p", "--model", "opus", "--thinking=adaptive", "x"])).code).toBe(0);
    expect(bodyOf(fake.requests[1]).thinking).toEqual({ type: "adaptive" });
  });

  it("thinking tokens are output tokens: priced, and counted toward --max-budget-usd", async ({
    dir,
    fake,
    run,
  }) => {
    writeFiles(dir, project);
    // 100,000 output tokens, most of them thinking, at claude-sonnet-4-5's $15 per million: $1.50.
    fake.push(
      thinkThenCall(
        "a long thought",
        "Read",
        { file_path: "a.txt" },
        { input_tokens: 0, output_tokens: 100_000 },
      ),
      text("never sent"),
    );
    const r = await run(["-p", "--output-format", "json", "--max-budget-usd", "1", "read"]);
    const result = JSON.parse(r.stdout) as { total_cost_usd: number; subtype: string };
    expect(result.total_cost_usd).toBeCloseTo(1.5, 6);
    expect(result.subtype).toBe("error_max_budget_usd");
    expect(fake.requests).toHaveLength(1);
  });
});

describe("agentmd check", () => {
  it("warns, at the key, of a thinking budget not under maxTokens; a bad effort or thinking is an error at its value", async ({
    dir,
    run,
  }) => {
    writeFiles(dir, {
      "agent.md": "---\nallowed-tools: Read, Task\nmaxTokens: 16000\nthinking: 16000\n---\nBe brief.\n",
      "agents/big.md": "---\nname: big\ndescription: Big.\ntools: Read\nthinking: 20000\n---\nx\n",
      "agents/typo.md": "---\nname: typo\ndescription: Typo.\ntools: Read\neffort: hihg\n---\nx\n",
      "agents/small.md": "---\nname: small\ndescription: Small.\ntools: Read\nthinking: 500\n---\nx\n",
    });
    const r = await run(["check"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /agent\.md:4:11: warning: the thinking budget of 16000 tokens does not fit under maxTokens \(16000\).*max_tokens 32000.*\[thinking-budget\]/,
    );
    expect(r.stdout).toMatch(
      /agents\/big\.md:5:1: warning: the thinking budget of 20000 tokens does not fit under agent\.md's maxTokens \(16000\).*\[thinking-budget\]/,
    );
    expect(r.stdout).toMatch(
      /agents\/typo\.md:5:9: error: 'effort' must be one of 'low', 'medium', 'high', 'xhigh', 'max', got 'hihg' \[value-type\]/,
    );
    expect(r.stdout).toMatch(
      /agents\/small\.md:5:11: error: 'thinking' must be a whole number of tokens \(at least 1024\), 'adaptive', 'disabled' or the API's object .*, not 500 \[value-type\]/,
    );
  });
});

describe("agentmd batch", () => {
  it("an item's agent sends its own effort and thinking; --effort is every other run's", async ({
    dir,
    fake,
    run,
  }) => {
    writeFiles(dir, {
      "agent.md": "---\nallowed-tools: Read\nmodel: claude-opus-4-6\n---\nMAIN agent.\n",
      "agents/deep.md":
        "---\nname: deep\ndescription: Deep.\ntools: Read\neffort: max\nthinking: 4096\n---\nDEEP agent.\n",
      "runs.jsonl": '{"id": "a", "prompt": "one", "agent": "deep"}\n{"id": "b", "prompt": "two"}\n',
    });
    fake.push(text("x"), text("y"));
    const r = await run(["batch", "runs.jsonl", "--concurrency", "1", "--effort", "low"]);
    expect(r.code).toBe(0);
    const [deep] = bySystem(fake.requests, "DEEP agent");
    const [main] = bySystem(fake.requests, "MAIN agent");
    expect(effortOf(deep)).toBe("max");
    expect(bodyOf(deep).thinking).toEqual({ type: "enabled", budget_tokens: 4096 });
    expect(effortOf(main)).toBe("low");
    expect(bodyOf(main).thinking).toBeUndefined();
  });
});
