import { createRequire } from "node:module";
import path from "node:path";
import type { ErrorObject, ValidateFunction } from "ajv";
import fc from "fast-check";
import { describe, expect } from "vitest";
import { newAjv } from "../../src/shared/ajv.js";
import { createBuiltinTools } from "../../src/tools/builtin/index.js";
import { describeErrors, GATE_AJV_OPTIONS, gateKey } from "../../src/tools/schema-gate.js";
import type { Tool } from "../../src/tools/types.js";
import { test } from "../support/fixture.js";
import { REPO_ROOT } from "../support/fixtures.js";
import { call, resultsSent, resultText, text } from "../support/script.js";

/**
 * The builtin tools' schema gates are precompiled at build time (scripts/build-validators.mjs,
 * dist/tools/gate-validators.cjs, beside the bundle too) and picked by the text of the schema they
 * judge. Each must give the verdicts and the errors (so the messages) that compiling the same
 * schema at run time gives.
 */
const built = createRequire(import.meta.url)(path.join(REPO_ROOT, "dist/tools/gate-validators.cjs")) as {
  byShape: Record<string, ValidateFunction>;
};
const tools = createBuiltinTools();

function pair(tool: Tool): { pre: ValidateFunction; run: ValidateFunction } {
  const key = gateKey(tool);
  const pre = built.byShape[key];
  if (!pre) throw new Error(`no precompiled gate for ${tool.name}`);
  return { pre, run: newAjv(GATE_AJV_OPTIONS).compile(JSON.parse(key)) };
}

/** What a validator says of an input: its verdict, its errors, and the gate's sentence for them. */
function verdict(validate: ValidateFunction, input: unknown) {
  const ok = validate(input);
  const errors = (validate.errors ?? []) as ErrorObject[];
  return { ok, errors, message: describeErrors(errors) };
}

/** Inputs worth asking every tool: its own names with wrong and right kinds of value, misspellings. */
function tableFor(tool: Tool): unknown[] {
  const props = Object.keys((tool.inputSchema as { properties?: object }).properties ?? {});
  const first = props[0] ?? "x";
  return [
    {},
    null,
    [],
    "text",
    42,
    { [first]: "a" },
    { [first]: 3 },
    { [first]: null },
    { [first]: ["a"] },
    { [first]: { nested: true } },
    { [`${first}x`]: "a" },
    { [first.slice(0, -1)]: "a" },
    Object.fromEntries(props.map((p) => [p, "a"])),
    Object.fromEntries(props.map((p) => [p, 1])),
    Object.fromEntries(props.map((p) => [p, true])),
    Object.fromEntries(props.map((p) => [p, []])),
    Object.fromEntries(props.map((p) => [p, [{ content: "a", status: "pending", activeForm: "b" }]])),
    { [first]: "a", unknown_key: 1 },
  ];
}

describe("the builtin tools' precompiled schema gates", () => {
  test.each(tools.map((t) => [t.name, t] as const))("%s has one, keyed by its schema's text", (_, tool) => {
    expect(typeof built.byShape[gateKey(tool)]).toBe("function");
  });

  test.each(tools.map((t) => [t.name, t] as const))(
    "%s: the same verdicts, errors and messages as the gate compiled at run time (table)",
    (_, tool) => {
      const { pre, run } = pair(tool);
      for (const input of tableFor(tool))
        expect(verdict(pre, input), JSON.stringify(input)).toEqual(verdict(run, input));
    },
  );

  test.each(tools.map((t) => [t.name, t] as const))(
    "%s: the same verdicts, errors and messages for any input built from its names (property)",
    (_, tool) => {
      const { pre, run } = pair(tool);
      const names = Object.keys((tool.inputSchema as { properties?: object }).properties ?? {});
      const key = fc.oneof(fc.constantFrom(...names, "x"), fc.string({ maxLength: 8 }));
      const value = fc.oneof(
        fc.jsonValue({ maxDepth: 2 }),
        fc.array(
          fc.dictionary(
            fc.constantFrom("content", "status", "activeForm", "id"),
            fc.jsonValue({ maxDepth: 1 }),
          ),
        ),
      );
      fc.assert(
        fc.property(
          fc.oneof(fc.dictionary(key, value, { maxKeys: 6 }), fc.jsonValue({ maxDepth: 2 })),
          (input) => {
            expect(verdict(pre, input)).toEqual(verdict(run, input));
          },
        ),
        { numRuns: 150 },
      );
    },
  );

  test("the built CLI's gate still refuses a misspelled parameter, with the run-time gate's message", async ({
    cli,
    fake,
    project,
  }) => {
    project({ "agent.md": "---\nallowed-tools: Bash\n---\nYou run commands.\n" });
    fake.push(call("Bash", { comand: "true" }), text("done"));
    const r = await cli(["-p", "go"]);
    expect(r.code, r.stderr).toBe(0);
    expect(resultText(resultsSent(fake, 1)[0])).toBe(
      "Invalid input for Bash: unknown parameter 'comand' — did you mean 'command'? The tool was not executed.",
    );
  });
});
