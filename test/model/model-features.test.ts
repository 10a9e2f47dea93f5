import { describe, expect, it } from "vitest";
import { featuresOf, reasoningParams } from "../../src/model/model-features.js";
import { signatureOf, startFakeAnthropic } from "../support/fake-anthropic.js";

describe("reasoningParams: effort and thinking as each model takes them", () => {
  it.each([
    ["claude-opus-5-5", { effort: "max" }, { output_config: { effort: "max" } }],
    ["claude-opus-4-6", { thinking: 2048 }, { thinking: { type: "enabled", budget_tokens: 2048 } }],
    ["claude-sonnet-4-5-20250929", { thinking: "disabled" }, { thinking: { type: "disabled" } }],
    ["claude-opus-5-5", { thinking: "adaptive" }, { thinking: { type: "adaptive" } }],
  ] as const)("%s %j is sent as %j", (model, wants, sent) => {
    const p = reasoningParams(model, wants, 8192);
    expect(p).toMatchObject({ ...sent, max_tokens: 8192, notices: [] });
  });

  it.each([
    [
      "claude-sonnet-4-5",
      { effort: "low" },
      /effort 'low' not sent: the model claude-sonnet-4-5 takes no effort/,
    ],
    ["claude-opus-4-5", { effort: "xhigh" }, /takes low, medium, high$/],
    [
      "claude-sonnet-5-5",
      { thinking: "disabled" },
      /thinking 'disabled' not sent: the model claude-sonnet-5-5 takes 'adaptive'/,
    ],
    [
      "claude-fable-5-2",
      { effort: "high" },
      /effort not sent: agentmd does not know whether the model claude-fable-5-2 takes it/,
    ],
    ["us.anthropic.claude-fable-5-2-v1:0", { thinking: 4096 }, /thinking not sent: agentmd does not know/],
  ] as const)("%s %j is not sent, with a notice", (model, wants, notice) => {
    const p = reasoningParams(model, wants, 8192);
    expect(p.output_config).toBeUndefined();
    expect(p.thinking).toBeUndefined();
    expect(p.notices).toEqual([expect.stringMatching(notice)]);
  });

  it("a model id is matched whole or as a dated snapshot, never by prefix", () => {
    expect(featuresOf("claude-opus-5")).toBeDefined();
    expect(featuresOf("claude-opus-5-20260601")).toEqual(featuresOf("claude-opus-5"));
    expect(featuresOf("claude-opus-5-9")).toBeUndefined();
  });

  it("a provider's spelling of a model is the model it names (Bedrock, Vertex)", () => {
    expect(featuresOf("us.anthropic.claude-opus-4-6-v1:0")).toEqual(featuresOf("claude-opus-4-6"));
    expect(featuresOf("anthropic.claude-opus-5-20260601-v1:0")).toEqual(featuresOf("claude-opus-5"));
    expect(featuresOf("claude-opus-4-6@20260101")).toEqual(featuresOf("claude-opus-4-6"));
    expect(featuresOf("us.anthropic.claude-opus-5-9-v1:0")).toBeUndefined();
  });

  it("a budget not under max_tokens raises it to the budget plus max_tokens", () => {
    expect(reasoningParams("claude-opus-4-6", { thinking: 8192 }, 8192).max_tokens).toBe(16384);
    expect(reasoningParams("claude-opus-4-6", { thinking: 8191 }, 8192).max_tokens).toBe(8192);
  });
});

describe("the fake API refuses what the API refuses with thinking on", () => {
  const post = (url: string, body: unknown) =>
    fetch(`${url}/v1/messages`, { method: "POST", body: JSON.stringify(body) }).then(async (r) => ({
      status: r.status,
      text: await r.text(),
    }));
  const base = {
    model: "claude-sonnet-4-5",
    max_tokens: 4096,
    thinking: { type: "enabled", budget_tokens: 2048 },
  };
  const turn = (first: unknown) => [
    { role: "user", content: "hi" },
    { role: "assistant", content: [first, { type: "tool_use", id: "t1", name: "Read", input: {} }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "x" }] },
  ];

  it("a dropped or edited thinking block, or max_tokens not above the budget; the block as sent is taken", async () => {
    const fake = await startFakeAnthropic([{ kind: "message", content: [{ type: "text", text: "ok" }] }]);
    try {
      const dropped = await post(fake.url, { ...base, messages: turn({ type: "text", text: "calling" }) });
      expect(dropped).toMatchObject({
        status: 400,
        text: expect.stringContaining("must start with a thinking block"),
      });
      const edited = { type: "thinking", thinking: "changed", signature: signatureOf("original") };
      expect((await post(fake.url, { ...base, messages: turn(edited) })).text).toMatch(/Invalid `signature`/);
      const small = { ...base, max_tokens: 2048, messages: [{ role: "user", content: "hi" }] };
      expect((await post(fake.url, small)).text).toMatch(/must be greater than `thinking.budget_tokens`/);
      const kept = { type: "thinking", thinking: "original", signature: signatureOf("original") };
      expect((await post(fake.url, { ...base, messages: turn(kept) })).status).toBe(200);
      expect(fake.remaining()).toBe(0);
    } finally {
      await fake.close();
    }
  });
});
