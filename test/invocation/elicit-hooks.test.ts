import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { elicitDesk } from "../../src/invocation/elicit-hooks.js";
import type { FunctionHook, HookPayload, HookReply, Hooks } from "../../src/loop/hooks.js";
import { formProblem } from "../../src/mcp/elicit-schema.js";
import type { ElicitationAnswer, ElicitationRequest } from "../../src/mcp/elicitation.js";

const FORM = {
  type: "object",
  properties: {
    name: { type: "string", minLength: 2, maxLength: 8 },
    age: { type: "integer", minimum: 0, maximum: 150 },
    tea: { type: "boolean" },
    size: { type: "string", enum: ["s", "m", "l"] },
    mail: { type: "string", format: "email" },
    tags: { type: "array", items: { enum: ["a", "b"] }, maxItems: 2 },
    pick: { type: "string", oneOf: [{ const: "x", title: "X" }] },
  },
  required: ["name"],
};

describe("formProblem: the content a form takes", () => {
  it.each([
    [{ name: "Ada" }, undefined],
    [{ name: "Ada", age: 36, tea: false, size: "m", mail: "a@b.io", tags: ["a"], pick: "x" }, undefined],
    [{}, "'name' is required"],
    [{ name: "A" }, "'name' must have at least 2 characters"],
    [{ name: "Ada Lovelace" }, "'name' must have at most 8 characters"],
    [{ name: 7 }, "'name' must be text"],
    [{ name: null }, "'name' must be text"],
    [{ name: "Ada", age: 1.5 }, "'age' must be an integer"],
    [{ name: "Ada", age: -1 }, "'age' must be at least 0"],
    [{ name: "Ada", age: "3" }, "'age' must be an integer"],
    [{ name: "Ada", tea: "yes" }, "'tea' must be true or false"],
    [{ name: "Ada", size: "xl" }, "'size' must be one of s, m, l"],
    [{ name: "Ada", mail: "nope" }, "'mail' must be an email"],
    [{ name: "Ada", tags: ["c"] }, `'tags' has "c", not one of a, b`],
    [{ name: "Ada", tags: ["a", "b", "a"] }, "'tags' must have at most 2 choices"],
    [{ name: "Ada", tags: "a" }, "'tags' must be a list of choices"],
    [{ name: "Ada", pick: "y" }, "'pick' must be one of x"],
    [{ name: "Ada", extra: 1 }, "'extra' is not a field of the form"],
    [{ name: "Ada", __proto__: 1 }, undefined],
    [JSON.parse('{"name":"Ada","__proto__":1}'), "'__proto__' is not a field of the form"],
    [{ name: "Ada", toString: "x" }, "'toString' is not a field of the form"],
  ])("%j → %s", (content, problem) => {
    expect(formProblem(FORM, content)).toBe(problem);
  });
});

const REQUEST: ElicitationRequest = { server: "docs", message: "Who?", requestedSchema: FORM };
const never = new AbortController().signal;

function desk(hooks: Hooks, ask?: (r: ElicitationRequest) => ElicitationAnswer) {
  const warnings: string[] = [];
  const d = elicitDesk(hooks, ask && (async (r) => ask(r)), { cwd: "/p", mode: "default" });
  d.at((signal) => ({
    session: { sessionId: "s1", cwd: "/p", runId: "", permissionMode: "default" },
    warn: (m) => warnings.push(m),
    signal,
  }));
  return { ask: () => d.elicit(REQUEST, never), warnings };
}

const fn = (run: (p: HookPayload) => HookReply, matcher?: string): FunctionHook => ({
  run,
  ...(matcher !== undefined && { matcher }),
});

describe("the Elicitation and ElicitationResult hooks around a question", () => {
  it("the first Elicitation hook that answers stands; the user is not asked", async () => {
    const asked: unknown[] = [];
    const d = desk(
      {
        Elicitation: [
          fn(() => undefined),
          fn(() => ({ hookSpecificOutput: { action: "accept", content: { name: "Ada" } } })),
          fn(() => ({ action: "decline" })),
        ],
      },
      (r) => {
        asked.push(r);
        return { action: "cancel" };
      },
    );
    expect(await d.ask()).toEqual({ action: "accept", content: { name: "Ada" } });
    expect(asked).toEqual([]);
  });

  it("a hook whose matcher names another server is not run", async () => {
    const d = desk({ Elicitation: [fn(() => ({ action: "accept", content: { name: "Ada" } }), "github")] });
    expect(await d.ask()).toEqual({ action: "decline" });
  });

  it.each([
    ["a block", { decision: "block", reason: "no" }],
    ["continue: false", { continue: false }],
    ["an action it does not know", { action: "maybe" }],
    ["content that is not an object", { action: "accept", content: ["Ada"] }],
  ])("%s declines, and is said", async (_, reply) => {
    const d = desk({ Elicitation: [fn(() => reply as HookReply)] }, () => ({
      action: "accept",
      content: { name: "Ada" },
    }));
    expect(await d.ask()).toEqual({ action: "decline" });
    expect(d.warnings).toHaveLength(1);
  });

  it("a hook that throws declines (it fails closed)", async () => {
    const d = desk({
      Elicitation: [
        fn(() => {
          throw new Error("boom");
        }),
      ],
    });
    expect(await d.ask()).toEqual({ action: "decline" });
    expect(d.warnings[0]).toContain("boom");
  });

  it("ElicitationResult hooks see the answer each before them put; an accept keeps the content it omits", async () => {
    const seen: unknown[] = [];
    const d = desk(
      {
        ElicitationResult: [
          fn((p) => {
            seen.push({ action: p.action, content: p.content });
            return { action: "decline" };
          }),
          fn((p) => {
            seen.push({ action: p.action, content: p.content });
            return { action: "accept", content: { name: "Grace" } };
          }),
          fn((p) => {
            seen.push({ action: p.action, content: p.content });
            return { action: "accept" };
          }),
        ],
      },
      () => ({ action: "accept", content: { name: "Ada" } }),
    );
    expect(await d.ask()).toEqual({ action: "accept", content: { name: "Grace" } });
    expect(seen).toEqual([
      { action: "accept", content: { name: "Ada" } },
      { action: "decline", content: undefined },
      { action: "accept", content: { name: "Grace" } },
    ]);
  });

  it("the user's own answer that the form refuses is declined too", async () => {
    const d = desk({}, () => ({ action: "accept", content: { name: "A" } }));
    expect(await d.ask()).toEqual({ action: "decline" });
    expect(d.warnings[0]).toContain("'name' must have at least 2 characters");
  });

  const action = fc.constantFrom("accept", "decline", "cancel", "other", undefined);
  const content = fc.option(
    fc.dictionary(
      fc.constantFrom("name", "age", "tea", "size", "tags", "x"),
      fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string())),
    ),
    { nil: undefined },
  );
  const reply = fc.record({ action, content }, { requiredKeys: [] });

  it("whatever the hooks and the user answer, an accept sent fits the form", async () => {
    await fc.assert(
      fc.asyncProperty(reply, reply, reply, async (before, user, after) => {
        const d = desk(
          {
            Elicitation: [fn(() => ({ hookSpecificOutput: before }) as HookReply)],
            ElicitationResult: [fn(() => ({ hookSpecificOutput: after }) as HookReply)],
          },
          () => user as ElicitationAnswer,
        );
        const sent = await d.ask();
        expect(["accept", "decline", "cancel"]).toContain(sent.action);
        if (sent.action === "accept") expect(formProblem(FORM, sent.content ?? {})).toBeUndefined();
        else expect(sent.content).toBeUndefined();
      }),
      { numRuns: 200 },
    );
  });
});
