import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openProject } from "../../src/invocation/open-project.js";
import { type FakeAnthropic, startFakeAnthropic } from "../support/fake-anthropic.js";
import { tempDir } from "../support/fixtures.js";
import { mcpJson, startsOf, stdioServer } from "../support/mcp.js";
import { drain } from "../support/runs.js";
import { call, resultsSent, resultText, text, toolsOf } from "../support/script.js";
import { writeFiles } from "../support/tools.js";
import { trustingAll } from "../support/trust.js";

let dir: string;
let cleanup: () => void;
let fake: FakeAnthropic | undefined;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  writeFiles(dir, {
    "agent.md": "---\nallowed-tools: Shout, mcp__srv__whoami\n---\nMain.\n",
    "tools/shout.mjs": `import { defineTool, ok } from "agentmd";\nexport default defineTool({ name: "Shout", description: "Shouts.", inputSchema: { type: "object", properties: { text: { type: "string" } } }, execute: async ({ text }) => ok(String(text).toUpperCase()) });\n`,
    "tools/broken.mjs": "import nothing from './missing.mjs';\nexport default nothing;\n",
    ".mcp.json": mcpJson({ srv: stdioServer("basic", path.join(dir, "srv.starts")) }),
  });
});
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  cleanup();
});

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("openProject: the one way a command gets a runner", () => {
  it("offers the project's custom tools to every runner it makes, and says which did not load", async () => {
    const project = await openProject(dir, trustingAll(path.join(dir, "home")));
    expect(project.tools.map((t) => t.name)).toEqual(["Shout"]);
    expect(project.diagnostics.map((d) => `${path.basename(d.file)} ${d.code}`)).toEqual([
      "broken.mjs custom-tool-import",
    ]);
    fake = await startFakeAnthropic([call("Shout", { text: "hi" }), text("done")]);
    const runner = project.runner({ cwd: dir, env: {}, model: { apiKey: "k", baseURL: fake.url } });
    try {
      const { result } = await drain(runner.run("go"));
      expect(result.outcome).toBe("done");
      expect(toolsOf(fake, 0)).toEqual(["Shout", "mcp__srv__whoami"]);
      expect(resultText(resultsSent(fake, 1)[0])).toBe("HI");
    } finally {
      await runner.close();
    }
  });

  it("close() stops the servers the runs started; it may be called again, and never rejects", async () => {
    const project = await openProject(dir, trustingAll(path.join(dir, "home")));
    fake = await startFakeAnthropic([call("mcp__srv__whoami", {}), text("done")]);
    const runner = project.runner({ env: {}, model: { apiKey: "k", baseURL: fake.url } });
    await drain(runner.run("go"));
    expect(startsOf(path.join(dir, "srv.starts"))).toBe(1);
    const pid = Number(readFileSync(path.join(dir, "srv.starts"), "utf8").trim());
    expect(alive(pid)).toBe(true);
    await Promise.all([runner.close(), runner.close()]);
    await runner.close();
    expect(alive(pid)).toBe(false);
  });
});
