import { describe, expect, it } from "vitest";
import { type BatchItem, batchItemOf, itemJson, parseBatchItems } from "../../src/batch/batch-item.js";
import { batchIdOf, batchSessionId } from "../../src/batch/batch-session-id.js";
import { checkSessionId } from "../../src/loop/transcript.js";

describe("batch items", () => {
  it.each([
    [
      { id: "a", prompt: "hi" },
      { id: "a", input: { kind: "prompt", text: "hi" } },
    ],
    [
      { id: 7, line: "/review 7" },
      { id: "7", input: { kind: "line", text: "/review 7" } },
    ],
    [
      { id: "a", prompt: "hi", agent: "reviewer", cwd: "repos/a" },
      { id: "a", input: { kind: "prompt", text: "hi" }, agent: "reviewer", cwd: "repos/a" },
    ],
    ["x", 'expected an object such as {"id": "a", "prompt": "…"}'],
    [{ prompt: "hi" }, "'id' must be a non-empty string"],
    [{ id: " ", prompt: "hi" }, "'id' must be a non-empty string"],
    [
      { id: "a" },
      "give exactly one of 'prompt' (plain text) and 'line' (typed as in the REPL, e.g. '/review 12')",
    ],
    [{ id: "a", prompt: "x", line: "/y" }, expect.stringContaining("give exactly one of")],
    [{ id: "a", prompt: "" }, "'prompt' must be a non-empty string"],
    [{ id: "a", prompt: "x", agent: 3 }, "'agent' must be a non-empty string"],
    [{ id: "a", promt: "x" }, expect.stringContaining("unknown key 'promt'")],
    [{ id: "x".repeat(201), prompt: "x" }, "'id' is longer than 200 characters"],
  ])("%j → %j", (input, expected) => {
    expect(batchItemOf(input)).toEqual(expected);
  });

  it("reads a file line by line, names the line of each error, and refuses a repeated id", () => {
    const { items, errors } = parseBatchItems(
      '{"id": "a", "prompt": "x"}\n\n[1]\n{"id": "a", "line": "/y"}\n{"id": "b", "line": "/y"}\n',
    );
    expect(items.map((i) => i.id)).toEqual(["a", "b"]);
    expect(errors).toEqual([
      { line: 3, message: 'expected an object such as {"id": "a", "prompt": "…"}' },
      { line: 4, message: "the id 'a' is used on line 1 already" },
    ]);
  });

  it("writes an item back as the line it came from", () => {
    const line = { id: "a", line: "/y 1", agent: "r", cwd: "c" };
    const item = batchItemOf(line);
    expect(typeof item === "string" ? item : itemJson(item)).toEqual(line);
  });
});

describe("batch session ids", () => {
  it("are the same every time, differ by batch, id, input, agent, cwd and project version, and are valid session and job ids", () => {
    const item = (id: string, more: Partial<BatchItem> = {}): BatchItem => ({
      id,
      input: { kind: "prompt", text: "review it" },
      ...more,
    });
    const a = batchSessionId("reviews", item("owner/repo#12"), "sha256:1");
    expect(a).toBe(batchSessionId("reviews", item("owner/repo#12"), "sha256:1"));
    expect(a).toMatch(/^reviews-owner_repo_12-[0-9a-f]{12}$/);
    const others = [
      batchSessionId("reviews", item("owner_repo_12"), "sha256:1"),
      batchSessionId("other", item("owner/repo#12"), "sha256:1"),
      batchSessionId("reviews", item("owner/repo#12"), "sha256:2"),
      batchSessionId(
        "reviews",
        item("owner/repo#12", { input: { kind: "prompt", text: "review it again" } }),
        "sha256:1",
      ),
      batchSessionId(
        "reviews",
        item("owner/repo#12", { input: { kind: "line", text: "review it" } }),
        "sha256:1",
      ),
      batchSessionId("reviews", item("owner/repo#12", { agent: "reviewer" }), "sha256:1"),
      batchSessionId("reviews", item("owner/repo#12", { cwd: "sub" }), "sha256:1"),
    ];
    expect(new Set([a, ...others]).size).toBe(others.length + 1);
    for (const id of [
      a,
      batchSessionId("..", item("../../etc"), "v"),
      batchSessionId("x", item("é".repeat(200)), "v"),
    ]) {
      expect(checkSessionId(id)).toBe(id);
      expect(id).not.toContain(":");
      expect(id).not.toContain("..");
    }
  });

  it("name a batch after its file", () => {
    expect(batchIdOf("reviews.jsonl")).toBe("reviews");
    expect(batchIdOf("evals v2.JSONL")).toBe("evals-v2");
    expect(batchIdOf("...")).toBe("batch");
  });
});
