import { describe, expect } from "vitest";
import type { BatchResult } from "../../src/batch/batch-result.js";
import { type CliRun, runCli } from "../support/cli.js";
import type { Scripted } from "../support/fake-anthropic.js";
import { test } from "../support/fixture.js";
import { call, text } from "../support/script.js";
import { writeFiles } from "../support/tools.js";

/** `agentmd batch --json-schema` and `--max-budget-usd` (in this process), against the fake API. */
const it = test.extend<{ run: (args: string[]) => Promise<CliRun> }>({
  run: async ({ dir, env }, use) => {
    await use((args) => runCli(args, { cwd: dir, env: { ...env } }));
  },
});

const results = (stdout: string) =>
  stdout
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as BatchResult)
    .sort((a, b) => a.id.localeCompare(b.id));

/** One Read call costing `usd` (sonnet: $15 per million output tokens). */
const costlyRead = (usd: number): Scripted => ({
  kind: "message",
  content: [{ type: "tool_use", name: "Read", input: { file_path: "a.txt" } }],
  usage: { input_tokens: 0, output_tokens: Math.round((usd / 15) * 1_000_000) },
});

it.beforeEach(({ dir }) => {
  writeFiles(dir, {
    "agent.md": "---\nallowed-tools: Read\nmodel: sonnet\n---\nBe brief.\n",
    "a.txt": "alpha\n",
    "runs.jsonl":
      '{"id": "r0", "prompt": "one"}\n{"id": "r1", "prompt": "two"}\n{"id": "r2", "prompt": "three"}\n',
  });
});

describe("agentmd batch, unattended", () => {
  it("--json-schema: every result line carries its structured_output", async ({ fake, run }) => {
    for (let i = 0; i < 3; i++) fake.push(call("StructuredOutput", { n: i }));
    const schema = JSON.stringify({
      type: "object",
      properties: { n: { type: "integer" } },
      required: ["n"],
    });
    const r = await run(["batch", "runs.jsonl", "--concurrency", "1", "--json-schema", schema]);
    expect(r.code).toBe(0);
    const out = results(r.stdout);
    expect(out.map((x) => x.outcome)).toEqual(["done", "done", "done"]);
    expect(
      out.map((x) => x.structured_output).sort((a, b) => (a as { n: number }).n - (b as { n: number }).n),
    ).toEqual([{ n: 0 }, { n: 1 }, { n: 2 }]);
    for (const x of out) expect(JSON.parse(x.text)).toEqual(x.structured_output);
  });

  it("--max-budget-usd is for all the items together: once reached, no run sends another request", async ({
    fake,
    run,
  }) => {
    fake.push(costlyRead(0.3), text("first done"), costlyRead(0.3), text("never sent"));
    const r = await run(["batch", "runs.jsonl", "--concurrency", "1", "--max-budget-usd", "0.5"]);
    expect(r.code).toBe(1);
    const out = results(r.stdout);
    const done = out.filter((x) => x.outcome === "done");
    const stopped = out.filter((x) => x.outcome === "limit");
    expect(done).toHaveLength(1);
    expect(stopped).toHaveLength(2);
    for (const x of stopped) expect(x.message).toBe("Reached maximum budget ($0.5)");
    expect(fake.requests).toHaveLength(3);
  });
});
