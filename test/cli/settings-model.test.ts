import { describe, expect } from "vitest";
import { test as it } from "../support/fixture.js";
import { text } from "../support/script.js";

/**
 * `model` in the settings files: the model of every run whose agent.md names none. The first run
 * crosses the built CLI; the other rows run the CLI's main() in this process.
 */
describe("settings model", () => {
  it("the project's .claude/settings.json model is the model of a run without one in agent.md", async ({
    project,
    fake,
    cli,
  }) => {
    project({ ".claude/settings.json": JSON.stringify({ model: "opus" }) });
    fake.push(text("ok"));
    const r = await cli(["-p", "hi"]);
    expect(r.stderr).toBe("");
    expect(fake.requests[0]?.body.model).toBe("claude-opus-5-5");
  });

  it("the user's settings too; the local file wins over both; agent.md's model wins over the settings", async ({
    project,
    fake,
    main,
  }) => {
    project({ "home/.claude/settings.json": JSON.stringify({ model: "haiku" }) });
    fake.push(text("a"), text("b"), text("c"));
    await main(["-p", "hi"]);
    expect(fake.requests[0]?.body.model).toBe("claude-haiku-5-5");
    project({ ".claude/settings.local.json": JSON.stringify({ model: "claude-sonnet-4-6" }) });
    await main(["-p", "hi"]);
    expect(fake.requests[1]?.body.model).toBe("claude-sonnet-4-6");
    project({ "agent.md": "---\nmodel: opus\n---\nYou help.\n" });
    await main(["-p", "hi"]);
    expect(fake.requests[2]?.body.model).toBe("claude-opus-5-5");
  });

  it("--model wins over the settings", async ({ project, fake, main }) => {
    project({ ".claude/settings.json": JSON.stringify({ model: "opus" }) });
    fake.push(text("ok"));
    await main(["-p", "--model", "haiku", "hi"]);
    expect(fake.requests[0]?.body.model).toBe("claude-haiku-5-5");
  });

  it("check reports an unknown settings model at its line, as a warning", async ({ project, main }) => {
    project({ ".claude/settings.json": '{\n  "model": "sonet"\n}\n' });
    const r = await main(["check"]);
    expect(r.stdout).toMatch(
      /\.claude\/settings\.json:2:\d+: warning: model 'sonet' is neither an alias \(sonnet, opus, haiku, inherit\) nor a Claude model id; did you mean 'sonnet'\?; the API will refuse it \[unknown-model\]/,
    );
  });
});
