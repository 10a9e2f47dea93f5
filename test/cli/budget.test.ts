import { describe, expect } from "vitest";
import { type CliRun, runCli } from "../support/cli.js";
import type { Scripted } from "../support/fake-anthropic.js";
import { test } from "../support/fixture.js";
import { resultsSent, text } from "../support/script.js";
import { writeFiles } from "../support/tools.js";

/**
 * `--max-budget-usd` and `maxBudgetUsd`: the session's cost (main agent and subagents) is checked
 * before every request; a subagent's own cap is a ceiling below its caller's. Sonnet is $15 per
 * million output tokens, so 20,000 output tokens cost $0.30.
 */
const it = test.extend<{ run: (args: string[]) => Promise<CliRun> }>({
  run: async ({ dir, env }, use) => {
    await use((args) => runCli(args, { cwd: dir, env: { ...env } }));
  },
});

/** A response of one call that cost `usd` (at sonnet's output price). */
const costly = (usd: number, name: string, input: unknown, id?: string): Scripted => ({
  kind: "message",
  content: [{ type: "tool_use", name, input, ...(id && { id }) }],
  usage: { input_tokens: 0, output_tokens: Math.round((usd / 15) * 1_000_000) },
});

it.beforeEach(({ dir }) => {
  writeFiles(dir, {
    "agent.md": "---\nallowed-tools: Read, Task\nmodel: sonnet\n---\nBe brief.\n",
    "agents/reader.md":
      "---\nname: reader\ndescription: Reads.\ntools: Read\nmaxBudgetUsd: 0.1\n---\nRead.\n",
    "agents/spender.md": "---\nname: spender\ndescription: Spends.\ntools: Read\n---\nRead.\n",
    "a.txt": "alpha\n",
  });
});

const read = { file_path: "a.txt" };

describe("--max-budget-usd", () => {
  it("once the session's cost reaches it, no further request: error_max_budget_usd, exit 1", async ({
    fake,
    run,
  }) => {
    fake.push(costly(0.6, "Read", read), costly(0.6, "Read", read), text("never sent"));
    const r = await run(["-p", "--output-format", "json", "--max-budget-usd", "0.9", "read"]);
    expect(r.code).toBe(1);
    expect(fake.requests).toHaveLength(2);
    expect(JSON.parse(r.stdout)).toMatchObject({
      subtype: "error_max_budget_usd",
      is_error: true,
      errors: ["Reached maximum budget ($0.9)"],
    });
  });

  it("a subagent's spending counts: the caller sends nothing more once it is reached", async ({
    fake,
    run,
  }) => {
    fake.push(
      costly(0, "Task", { subagent_type: "spender", description: "d", prompt: "read" }),
      costly(0.6, "Read", read),
      text("never sent"),
    );
    const r = await run(["-p", "--output-format", "json", "--max-budget-usd", "0.5", "go"]);
    expect(r.code).toBe(1);
    expect(fake.requests).toHaveLength(2);
    expect(JSON.parse(r.stdout).subtype).toBe("error_max_budget_usd");
  });

  it("a subagent stopped by its own cap is reported to its caller, which goes on", async ({ fake, run }) => {
    fake.push(
      costly(0, "Task", { subagent_type: "reader", description: "d", prompt: "read" }, "toolu_t"),
      costly(0.3, "Read", read),
      text("The reader ran out of budget."),
    );
    const r = await run(["-p", "--max-budget-usd", "5", "go"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("The reader ran out of budget.\n");
    expect(fake.requests).toHaveLength(3);
    const task = resultsSent(fake, 2).find((b) => b.tool_use_id === "toolu_t");
    expect(task?.is_error).toBe(true);
    expect(String(task?.content)).toMatch(/Reached maximum budget \(\$0\.1\)/);
  });

  it("a subagent's cap binds without a session budget too; agent.md's maxBudgetUsd is the session's", async ({
    dir,
    fake,
    run,
  }) => {
    fake.push(
      costly(0, "Task", { subagent_type: "reader", description: "d", prompt: "read" }, "toolu_t"),
      costly(0.3, "Read", read),
      text("went on"),
    );
    const r = await run(["-p", "go"]);
    expect(r.code).toBe(0);
    expect(String(resultsSent(fake, 2)[0]?.content)).toMatch(/Reached maximum budget \(\$0\.1\)/);
    writeFiles(dir, { "agent.md": "---\nallowed-tools: Read\nmaxBudgetUsd: 0.2\n---\nBe brief.\n" });
    fake.push(costly(0.3, "Read", read), text("never sent"));
    const capped = await run(["-p", "--output-format", "json", "go"]);
    expect(JSON.parse(capped.stdout)).toMatchObject({ errors: ["Reached maximum budget ($0.2)"] });
    expect(fake.requests).toHaveLength(4);
  });

  it("a model with no known price is refused under a budget, before any request", async ({ fake, run }) => {
    const r = await run(["-p", "--model", "claude-mystery-1", "--max-budget-usd", "1", "hi"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/claude-mystery-1 has no known price/);
    expect(fake.requests).toHaveLength(0);
  });

  it("a budget that is not a positive number is a usage error", async ({ run }) => {
    for (const bad of ["0", "-1", "lots", ""]) {
      const r = await run(["-p", `--max-budget-usd=${bad}`, "hi"]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/--max-budget-usd must be a number of US dollars above 0/);
    }
  });
});
