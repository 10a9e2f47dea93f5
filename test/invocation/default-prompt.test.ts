import { describe, expect, it } from "vitest";
import { defaultSystemPrompt } from "../../src/invocation/default-prompt.js";
import { list as compileList } from "../support/permissions.js";

describe("the default system prompt of a project without agent.md", () => {
  it("tells the model how to use the tools it may be offered, and only those", () => {
    const all = defaultSystemPrompt(compileList(null));
    expect(all).toMatch(/coding agent/);
    expect(all).toContain("Edit: old_string must match");
    expect(all).toContain("Bash");
    const readOnly = defaultSystemPrompt(compileList("Read, Grep"));
    expect(readOnly).toContain("Read a file before");
    expect(readOnly).toContain("Grep");
    expect(readOnly).not.toMatch(/Bash|Edit|Write|WebFetch/);
  });
});
