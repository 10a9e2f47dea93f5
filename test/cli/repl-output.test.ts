import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeAnthropic, startFakeAnthropic } from "../support/fake-anthropic.js";
import { tempDir } from "../support/fixtures.js";
import { calls, text, use } from "../support/script.js";
import { inTerminal, screenOf } from "../support/terminal.js";
import { writeFiles } from "../support/tools.js";

let dir: string;
let cleanup: () => void;
let fake: FakeAnthropic;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  writeFiles(dir, {
    "agent.md": "---\nname: helper\nallowed-tools: Bash\n---\nHelp.\n",
    "five.txt": "one\ntwo\nthree\nfour\nfive\nsix\n",
  });
});
afterEach(async () => {
  await fake?.close();
  cleanup();
});

const ANSWER =
  "All **now safe**:\n\n| file | change |\n|---|---|\n| calc.py | `a + b` |\n| 日本語.txt | none |\n\n```python\nreturn a + b\n```\n";

describe("what the REPL prints in a terminal", () => {
  it("tool lines in call order with a command's output under them, then the answer's Markdown laid out", async () => {
    // The first call reads a pipe no one writes to until the test has seen the second call's line.
    execFileSync("mkfifo", [path.join(dir, "slow.pipe")]);
    fake = await startFakeAnthropic([
      calls(use("Bash", { command: "cat slow.pipe" }), use("Bash", { command: "cat five.txt" })),
      text(ANSWER),
    ]);
    const r = await inTerminal(
      [
        { type: "expect", text: "› " },
        { type: "send", text: "check\r" },
        { type: "expect", text: "cat slow.pipe … running" },
        { type: "expect", text: "cat five.txt → ok" },
        { type: "touch", path: path.join(dir, "slow.pipe") },
        { type: "expect", text: "— done" },
        { type: "send", text: "/exit\r" },
      ],
      dir,
      { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HOME: dir },
    );
    expect(r.missing, r.output).toBeUndefined();
    const screen = screenOf(r.output).map((l) => l.trimEnd());
    const at = (line: string) => screen.indexOf(line);
    const pending = at("⏺ Bash cat slow.pipe … running");
    const five = screen.findIndex((l) => /^⏺ Bash cat five\.txt → ok \(\d+ ms\)$/.test(l));
    const slow = screen.findIndex((l) => /^⏺ Bash cat slow\.pipe → ok \(\d+ ms\)$/.test(l));
    expect(pending).toBeGreaterThan(-1);
    expect(five).toBeGreaterThan(pending);
    expect(slow).toBeGreaterThan(five);
    expect(screen.slice(five + 1, five + 5)).toEqual([
      "  ⎿  one",
      "     two",
      "     three",
      "     … +3 lines",
    ]);
    expect(screen[slow + 1]).toBe("  ⎿  (no output)");
    // the answer: no Markdown markers, the table aligned (wide characters counted as two columns)
    expect(at("All now safe:")).toBeGreaterThan(slow);
    expect(screen).toEqual(
      expect.arrayContaining([
        "│ file       │ change  │",
        "│ calc.py    │ `a + b` │",
        "│ 日本語.txt │ none    │",
      ]),
    );
    expect(screen).toContain("  return a + b");
    expect(r.output).not.toContain("**now safe**");
  });

  it("in colour unless NO_COLOR; `-p` prints the answer as the model wrote it", async () => {
    fake = await startFakeAnthropic([text(ANSWER), text(ANSWER)]);
    const r = await inTerminal(
      [
        // the prompt is coloured: its mark and the space after it are apart
        { type: "expect", text: "›" },
        { type: "send", text: "hi\r" },
        { type: "expect", text: "— done" },
        { type: "send", text: "/exit\r" },
      ],
      dir,
      { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HOME: dir, NO_COLOR: "" },
    );
    expect(r.missing, r.output).toBeUndefined();
    expect(r.output).toContain("All \x1b[1mnow safe\x1b[22m:");
    expect(r.output).toContain("\x1b[34mreturn\x1b[39m");
    const p = await inTerminal(
      [{ type: "expect", text: "return a + b" }],
      dir,
      {
        ANTHROPIC_API_KEY: "k",
        ANTHROPIC_BASE_URL: fake.url,
        HOME: dir,
        NO_COLOR: "",
      },
      ["-p", "hi"],
    );
    expect(p.missing, p.output).toBeUndefined();
    expect(p.output.replace(/\r\n/g, "\n")).toBe(`${ANSWER.trimEnd()}\n`);
  });

  it("/resume ID shows the conversation so far before the next prompt", async () => {
    fake = await startFakeAnthropic([
      calls(use("Bash", { command: "cat five.txt" })),
      text("The file has **six** lines."),
      text("Yes, six."),
    ]);
    const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HOME: dir };
    const first = await inTerminal(
      [
        { type: "expect", text: "› " },
        { type: "send", text: "count the lines\r" },
        { type: "expect", text: "— done" },
        { type: "send", text: "/exit\r" },
      ],
      dir,
      env,
    );
    expect(first.missing, first.output).toBeUndefined();
    const [id = ""] = readdirSync(path.join(dir, ".agentmd", "sessions"))
      .filter((f) => f.endsWith(".jsonl"))
      .map((f) => f.replace(/\.jsonl$/, ""));
    const r = await inTerminal(
      [
        { type: "expect", text: "› " },
        { type: "send", text: `/resume ${id}\r` },
        { type: "expect", text: `continuing ${id}` },
        { type: "send", text: "sure?\r" },
        { type: "expect", text: "Yes, six." },
        { type: "send", text: "/exit\r" },
      ],
      dir,
      env,
    );
    expect(r.missing, r.output).toBeUndefined();
    const screen = screenOf(r.output).map((l) => l.trimEnd());
    const shown = screen.slice(0, screen.indexOf(`continuing ${id}`));
    expect(shown).toEqual(
      expect.arrayContaining([
        "› count the lines",
        expect.stringMatching(/^⏺ Bash cat five\.txt → ok \(\d+ ms\)$/),
        "  ⎿  one",
        "The file has six lines.",
      ]),
    );
    expect(fake.requests[2]?.body.messages).toHaveLength(5);
  });
});
