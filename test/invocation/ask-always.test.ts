import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { NO_SETTINGS } from "../../src/definitions/settings.js";
import { createRunner } from "../../src/index.js";
import { approvalPolicy, createApprovals } from "../../src/invocation/approvals.js";
import type { ApprovalAnswer } from "../../src/loop/execute-call.js";
import { ASK_RULE, sessionRuleFor } from "../../src/permissions/approval.js";
import { decide, intersect } from "../../src/permissions/index.js";
import { type FakeAnthropic, startFakeAnthropic } from "../support/fake-anthropic.js";
import { tempDir } from "../support/fixtures.js";
import { CTX, entries, JUDGED, list, SHELL } from "../support/permissions.js";
import { drain, ofType } from "../support/runs.js";
import { call, text } from "../support/script.js";
import { writeFiles } from "../support/tools.js";

// "always" to a call a permissions.ask rule asked about: later calls that the same rule names,
// and that the answer's rule allows, ask no more; nothing else changes.

/** A session's approval tier with these ask rules (with agent.md: its list is the approval). */
function tier(ask: string, { allow = "", hasMain = true } = {}) {
  const settings = { ...NO_SETTINGS, ask: entries(ask, "settings.json"), allow: allow ? entries(allow) : [] };
  return createApprovals(
    approvalPolicy({ settings, allow: [], mainApproves: hasMain, workingDirs: ["/proj"], ctx: CTX }),
    CTX,
    undefined,
  );
}
const bash = (command: string) => ({ tool: "Bash", input: { command } });
const edit = (file_path: string) => ({
  tool: "Edit",
  input: { file_path, old_string: "a", new_string: "b" },
});
type Call = ReturnType<typeof bash> | ReturnType<typeof edit>;
const verdictOf = (t: ReturnType<typeof tier>, c: Call) => {
  const a = t.check(c, JUDGED);
  return a.kind === "ask" ? `ask: ${a.reason}` : a.kind;
};
const ASKS = `ask: ${ASK_RULE}`;

describe("always, answered to a call a permissions.ask rule asked about", () => {
  const cases: [string, string, Call, Call, string][] = [
    [
      "one rule, a call like it",
      "Bash(git push:*)",
      bash("git push origin main"),
      bash("git push origin dev"),
      "allowed",
    ],
    [
      "the rule is wider than the answer: another command asks",
      "Bash",
      bash("git status"),
      bash("npm test"),
      ASKS,
    ],
    [
      "the rule is wider than the answer: the same command runs",
      "Bash",
      bash("git status"),
      bash("git status -s"),
      "allowed",
    ],
    [
      "another rule still asks",
      "Bash(git push:*), Edit(secrets/**)",
      bash("git push"),
      edit("/proj/secrets/a"),
      ASKS,
    ],
    [
      "a path rule: another file it names",
      "Edit(secrets/**)",
      edit("/proj/secrets/a"),
      edit("/proj/secrets/b"),
      "allowed",
    ],
    [
      "a compound line needs every rule answered",
      "Bash(git push:*), Bash(rm:*)",
      bash("git push"),
      bash("git push && rm -f x"),
      ASKS,
    ],
    [
      "a compound answer covers each of its commands",
      "Bash(git push:*), Bash(rm:*)",
      bash("git push && rm -f x"),
      bash("rm -f y"),
      "allowed",
    ],
    [
      "an answer to one rule answers no other",
      "Bash(git push:*), Bash(git tag:*)",
      bash("git push"),
      bash("git tag v1"),
      ASKS,
    ],
  ];
  it.each(cases)("%s", (_name, ask, answered, later, expected) => {
    const t = tier(ask);
    expect(verdictOf(t, answered)).toBe(ASKS);
    t.allowForSession(answered, JUDGED);
    expect(verdictOf(t, answered)).toBe("allowed");
    expect(verdictOf(t, later)).toBe(expected);
  });

  it("without agent.md the answer pre-approves the call's rule too, so the call runs", () => {
    const t = tier("Bash(git push:*)", { hasMain: false });
    t.allowForSession(bash("git push"), JUDGED);
    expect(verdictOf(t, bash("git push --tags"))).toBe("allowed");
    expect(verdictOf(t, bash("git pull"))).toBe("ask: it is not pre-approved");
  });

  it("once is not always: the next call asks again", () => {
    const t = tier("Bash(git push:*)");
    expect(verdictOf(t, bash("git push"))).toBe(ASKS);
    expect(verdictOf(t, bash("git push"))).toBe(ASKS);
  });
});

const COMMANDS = ["echo one", "echo two", "printf x", "true", "echo one; printf x", "printf x && true"];
const RULES = ["Bash", "Bash(echo:*)", "Bash(printf:*)", "Bash(true:*)", "Bash(echo one:*)"];
const rules = fc.uniqueArray(fc.constantFrom(...RULES), { maxLength: 3 }).map((r) => r.join(", "));

describe("properties", () => {
  it("an always lets a call skip its question only when the ask rules naming it were answered for calls like it", () => {
    fc.assert(
      fc.property(
        rules.filter((r) => r !== ""),
        fc.array(fc.constantFrom(...COMMANDS), { maxLength: 4 }),
        fc.constantFrom(...COMMANDS),
        (ask, answered, later) => {
          const t = tier(ask);
          const before = verdictOf(t, bash(later));
          for (const c of answered) t.allowForSession(bash(c), JUDGED);
          const after = verdictOf(t, bash(later));
          // Answers only ever turn a question into a yes, and only for a call one of them allows.
          if (after !== before) {
            expect([before, after]).toEqual([ASKS, "allowed"]);
            const allows = answered.map((c) => list(sessionRuleFor(bash(c), SHELL)));
            expect(allows.some((l) => decide(l, bash(later), JUDGED).kind === "allowed")).toBe(true);
          }
        },
      ),
    );
  });
});

let dir: string;
let cleanup: () => void;
let fake: FakeAnthropic | undefined;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
});
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  cleanup();
});

/**
 * A session: the main agent's call is answered "always", then a subagent (a narrower list, and the
 * settings' deny rules) makes a call. Returns whether the subagent's call ran and whether it asked.
 */
async function session(s: {
  main: string;
  sub: string;
  deny: string;
  ask: string;
  first: string;
  second: string;
}) {
  writeFiles(dir, {
    ".claude/settings.json": JSON.stringify({
      permissions: { ask: s.ask.split(", ").filter(Boolean), deny: s.deny.split(", ").filter(Boolean) },
    }),
  });
  fake = await startFakeAnthropic([
    call("Bash", { command: s.first }),
    call("Task", { subagent_type: "helper", description: "d", prompt: "p" }),
    call("Bash", { command: s.second }),
    text("sub done"),
    text("done"),
  ]);
  const asked: string[] = [];
  const runner = createRunner({
    projectDir: dir,
    env: {},
    userDir: false,
    model: { apiKey: "k", baseURL: fake.url, maxRetries: 0 },
    main: { name: "main", "allowed-tools": `${s.main}, Task(helper)`, body: "Main." },
    agents: [{ name: "helper", description: "Helps.", tools: s.sub.split(", "), body: "Help." }],
    permissions: {
      approve: async (r): Promise<ApprovalAnswer> => {
        asked.push(String((r.call.input as { command?: unknown }).command));
        return r.depth === 0 ? { kind: "session" } : { kind: "deny" };
      },
    },
  });
  const { events } = await drain(runner.run("go"));
  await runner.close();
  await fake.close();
  fake = undefined;
  const second = ofType(events, "tool_end").find((e) => e.depth === 1 && e.name === "Bash");
  return { ran: second?.decision === "allowed", askedSecond: asked.length > 1 };
}

describe("an always in a session with subagents", () => {
  it("never lets a subagent's call run that its list or a deny rule refuses (real runs)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          main: rules.filter((r) => r !== ""),
          sub: rules.filter((r) => r !== ""),
          deny: rules,
          ask: rules.filter((r) => r !== ""),
          first: fc.constantFrom(...COMMANDS),
          second: fc.constantFrom(...COMMANDS),
        }),
        async (s) => {
          const { ran } = await session(s);
          const lists = intersect(intersect(list(s.main), list(s.sub)), list(null, s.deny || undefined));
          if (ran) expect(decide(lists, bash(s.second), { ...JUDGED, cwd: dir }).kind).toBe("allowed");
        },
      ),
      { numRuns: 12 },
    );
  }, 120_000);

  it("an always the main agent gave spares the subagent the question, within the subagent's list", async () => {
    const r = await session({
      main: "Bash",
      sub: "Bash(echo:*)",
      deny: "",
      ask: "Bash(echo:*)",
      first: "echo one",
      second: "echo two",
    });
    expect(r).toEqual({ ran: true, askedSecond: false });
    const narrower = await session({
      main: "Bash",
      sub: "Bash(printf:*)",
      deny: "",
      ask: "Bash",
      first: "echo one",
      second: "echo two",
    });
    expect(narrower.ran).toBe(false);
  });
});
