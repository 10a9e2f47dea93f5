import { describe, expect } from "vitest";
import { type CliRun, runCli } from "../support/cli.js";
import { test } from "../support/fixture.js";
import { call, resultsSent, text, toolsOf } from "../support/script.js";
import { writeFiles } from "../support/tools.js";

/**
 * Structured output as Claude Code's `--json-schema`: a StructuredOutput tool whose input schema is
 * the schema; a matching call ends the run with it, a failing one is answered with what failed.
 * Through the CLI in-process, against the fake API over real HTTP.
 */
const it = test.extend<{ run: (args: string[]) => Promise<CliRun> }>({
  run: async ({ dir, env }, use) => {
    await use((args) => runCli(args, { cwd: dir, env: { ...env } }));
  },
});

const SCHEMA = {
  type: "object",
  properties: { verdict: { enum: ["pass", "fail"] }, score: { type: "integer", minimum: 0 } },
  required: ["verdict", "score"],
  additionalProperties: false,
};
const schemaFlag = ["--json-schema", JSON.stringify(SCHEMA)];

it.beforeEach(({ dir }) => {
  writeFiles(dir, {
    "agent.md": "---\nallowed-tools: Read, Task\n---\nBe brief.\n",
    "agents/grader.md": [
      "---",
      "name: grader",
      "description: Grades.",
      "tools: Read",
      "outputSchema:",
      "  type: object",
      "  properties:",
      "    grade: { type: string }",
      "  required: [grade]",
      "---",
      "Grade.",
      "",
    ].join("\n"),
    "a.txt": "alpha\n",
  });
});

describe("--json-schema", () => {
  it("offers StructuredOutput with the schema; a valid call ends the run with structured_output", async ({
    fake,
    run,
  }) => {
    fake.push(call("StructuredOutput", { verdict: "pass", score: 3 }));
    const r = await run(["-p", "--output-format", "json", ...schemaFlag, "grade it"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({
      type: "result",
      subtype: "success",
      is_error: false,
      structured_output: { verdict: "pass", score: 3 },
    });
    expect(JSON.parse(out.result)).toEqual({ verdict: "pass", score: 3 });
    expect(fake.requests).toHaveLength(1);
    const tool = fake.requests[0]?.body.tools?.find(
      (t) => (t as { name: string }).name === "StructuredOutput",
    );
    expect((tool as { input_schema: unknown }).input_schema).toEqual(SCHEMA);
  });

  it("an invalid call is answered with what failed; the model may try again", async ({ fake, run }) => {
    fake.push(
      call("StructuredOutput", { verdict: "maybe", score: -1 }),
      call("StructuredOutput", { verdict: "fail", score: 0 }),
    );
    const r = await run(["-p", "--output-format", "json", ...schemaFlag, "grade it"]);
    expect(r.code).toBe(0);
    const first = resultsSent(fake, 1)[0];
    expect(first?.is_error).toBe(true);
    expect(String(first?.content)).toMatch(/verdict.*one of 'pass', 'fail'/);
    expect(String(first?.content)).toMatch(/score.*>= 0/);
    expect(JSON.parse(r.stdout).structured_output).toEqual({ verdict: "fail", score: 0 });
  });

  it("after 5 failed attempts: error_max_structured_output_retries, is_error, exit 1", async ({
    fake,
    run,
  }) => {
    for (let i = 0; i < 5; i++) fake.push(call("StructuredOutput", { verdict: "nope", score: 1 }));
    const r = await run(["-p", "--output-format", "json", ...schemaFlag, "grade it"]);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ subtype: "error_max_structured_output_retries", is_error: true });
    expect(out.structured_output).toBeUndefined();
    expect(fake.requests).toHaveLength(5);
  });

  it("a text answer without the call is reminded, never taken as success", async ({ fake, run }) => {
    fake.push(text("It passes, 3 points."), call("StructuredOutput", { verdict: "pass", score: 3 }));
    const r = await run(["-p", "--output-format", "json", ...schemaFlag, "grade it"]);
    expect(r.code).toBe(0);
    const reminder = fake.requests[1]?.body.messages.at(-1);
    expect(reminder?.role).toBe("user");
    expect(JSON.stringify(reminder?.content)).toMatch(/StructuredOutput/);
    expect(JSON.parse(r.stdout).structured_output).toEqual({ verdict: "pass", score: 3 });

    fake.push(...Array.from({ length: 5 }, () => text("no tool for me")));
    const never = await run(["-p", "--output-format", "json", ...schemaFlag, "grade it"]);
    expect(never.code).toBe(1);
    expect(JSON.parse(never.stdout)).toMatchObject({
      subtype: "error_max_structured_output_retries",
      is_error: true,
    });
  });

  it("a schema that is not JSON, or not a JSON Schema of an object, is a usage error", async ({ run }) => {
    const bad = await run(["-p", "--json-schema", "{nope", "hi"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--json-schema must be a JSON Schema as JSON text/);
    const notObject = await run(["-p", "--json-schema", '{"type":"string"}', "hi"]);
    expect(notObject.code).toBe(2);
    expect(notObject.stderr).toMatch(/must describe an object/);
    const wrong = await run([
      "-p",
      "--json-schema",
      '{"type":"object","properties":{"a":{"type":"strin"}}}',
      "hi",
    ]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/'properties\.a\.type'/);
  });
});

describe("outputSchema in definitions", () => {
  it("a subagent with outputSchema answers its caller's Task call with validated JSON", async ({
    fake,
    run,
  }) => {
    fake.push(
      call("Task", { subagent_type: "grader", description: "grade", prompt: "grade a.txt" }, "toolu_t"),
      call("StructuredOutput", { grade: 7 }),
      call("StructuredOutput", { grade: "A" }),
      text("The grader says A."),
    );
    const r = await run(["-p", "grade a.txt"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("The grader says A.\n");
    expect(toolsOf(fake, 0)).not.toContain("StructuredOutput");
    expect(toolsOf(fake, 1)).toContain("StructuredOutput");
    expect(String(resultsSent(fake, 2)[0]?.content)).toMatch(/'grade' must be a string/);
    const task = resultsSent(fake, 3).find((b) => b.tool_use_id === "toolu_t");
    expect(task?.is_error).toBeFalsy();
    expect(JSON.parse(String(task?.content))).toEqual({ grade: "A" });
  });

  it("agent.md's outputSchema applies to -p runs; a command's to the run /name starts", async ({
    dir,
    fake,
    run,
  }) => {
    writeFiles(dir, {
      "agent.md":
        "---\nallowed-tools: Read\noutputSchema:\n  type: object\n  required: [n]\n---\nBe brief.\n",
      "commands/count.md": "---\noutputSchema:\n  type: object\n  required: [count]\n---\nCount $1.\n",
    });
    fake.push(call("StructuredOutput", { n: 1 }), call("StructuredOutput", { count: 2 }));
    const main = await run(["-p", "--output-format", "json", "hi"]);
    expect(JSON.parse(main.stdout).structured_output).toEqual({ n: 1 });
    const cmd = await run(["-p", "--output-format", "json", "/count sheep"]);
    expect(JSON.parse(cmd.stdout).structured_output).toEqual({ count: 2 });
    const offered = fake.requests[1]?.body.tools?.find(
      (t) => (t as { name: string }).name === "StructuredOutput",
    );
    expect((offered as { input_schema: { required: string[] } }).input_schema.required).toEqual(["count"]);
  });

  it("check reports an invalid outputSchema as an error at its place in the file", async ({ dir, run }) => {
    writeFiles(dir, {
      "agents/bad.md":
        "---\nname: bad\ndescription: Bad.\noutputSchema:\n  type: object\n  properties:\n    n:\n      type: numbr\n---\nx\n",
    });
    const r = await run(["check", "--json"]);
    const found = JSON.stringify(JSON.parse(r.stdout));
    expect(found).toMatch(/output-schema/);
    const d = (JSON.parse(r.stdout).diagnostics as { code: string; line: number; severity: string }[]).find(
      (x) => x.code === "output-schema",
    );
    expect(d).toMatchObject({ severity: "error", line: 8 });
  });
});
