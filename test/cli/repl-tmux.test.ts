import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeAnthropic, startFakeAnthropic } from "../support/fake-anthropic.js";
import { tempDir } from "../support/fixtures.js";
import { call, resultsSent, resultText, text } from "../support/script.js";
import { agentmdInTmux, type Pane, runTmuxTests } from "../support/tmux.js";
import { writeFiles } from "../support/tools.js";

// The REPL in a real terminal (tmux, 120×40), as a person sees it: `capture-pane` is the screen.

const FRAME = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;
const PROMPT = /^›/m;
let dir: string;
let cleanup: () => void;
let fake: FakeAnthropic | undefined;
let pane: Pane | undefined;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
});
afterEach(async () => {
  pane?.close();
  pane = undefined;
  await fake?.close();
  fake = undefined;
  cleanup();
});

const start = (f: FakeAnthropic) =>
  agentmdInTmux(dir, { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: f.url, HOME: dir });

/** The prompt is back, and a REPL command answered after it: any late spinner frame had its chance. */
async function settled(p: Pane): Promise<string> {
  p.keys(["/cost", "Enter"]);
  return p.until((s) => /this conversation: \d+ turn/.test(s), "the /cost line after the turn");
}

describe.runIf(runTmuxTests)("the REPL in tmux", { timeout: 90_000 }, () => {
  it("Ctrl-C while the model is awaited leaves no spinner frame on the screen", async () => {
    writeFiles(dir, { "agent.md": "---\nname: helper\nallowed-tools: Read\n---\nHelp.\n" });
    fake = await startFakeAnthropic([{ kind: "hang", before: [] }]);
    pane = start(fake);
    await pane.until((s) => PROMPT.test(s), "the prompt");
    pane.keys(["tell me", "Enter"]);
    await pane.until((s) => /waiting for the model · \d/.test(s), "the spinner");
    pane.keys(["C-c"]);
    await pane.until((s) => s.includes("stopping this turn"), "the turn to stop");
    const screen = await settled(pane);
    expect(screen).not.toMatch(FRAME);
    expect(screen).not.toContain("waiting for the model");
    expect(pane.alive()).toBe(true);
    expect(screen).not.toMatch(/\bat .*\.m?js:\d+/);
  });

  it("Ctrl-C while a tool runs leaves no spinner frame on the screen", async () => {
    writeFiles(dir, { "agent.md": "---\nname: helper\nallowed-tools: Bash\n---\nHelp.\n" });
    fake = await startFakeAnthropic([call("Bash", { command: "echo started; sleep 30" }), text("never")]);
    pane = start(fake);
    await pane.until((s) => PROMPT.test(s), "the prompt");
    pane.keys(["run it", "Enter"]);
    await pane.until((s) => /running Bash · \d/.test(s), "the tool's spinner");
    pane.keys(["C-c"]);
    await pane.until((s) => s.includes("stopping this turn"), "the turn to stop");
    const screen = await settled(pane);
    expect(screen).not.toMatch(FRAME);
    expect(screen).not.toContain("running Bash ·");
    expect(pane.alive()).toBe(true);
  });

  it("the approval question answers with one key (y), with the arrows and Enter, and takes a reason after no", async () => {
    fake = await startFakeAnthropic([
      call("Bash", { command: "touch one" }),
      call("Bash", { command: "touch two" }),
      text("done"),
    ]);
    pane = start(fake);
    await pane.until((s) => PROMPT.test(s), "the prompt");
    pane.keys(["make files", "Enter"]);
    await pane.until((s) => s.includes("a  always: Bash(touch:*) for this session"), "the question");
    // One key, no Enter.
    pane.keys(["y"], true);
    await pane.until((s) => s.includes("allow? yes"), "the answer");
    await pane.until((s) => s.includes("wants to run Bash: touch two"), "the second question");
    // The arrows move the choice; Enter takes it; after "no", a line of text is the reason.
    pane.keys(["Down", "Down"]);
    await pane.until((s) => /❯ n {2}no, and say why/.test(s), "the choice on no");
    pane.keys(["Enter"]);
    await pane.until((s) => s.includes("why? (the model is told"), "the reason's question");
    pane.keys(["not two, please"], true);
    pane.keys(["Enter"]);
    const screen = await pane.until((s) => /— done/.test(s), "the end of the turn");
    expect(screen).toContain("allow? no: not two, please");
    expect(existsSync(path.join(dir, "one"))).toBe(true);
    expect(existsSync(path.join(dir, "two"))).toBe(false);
    expect(resultText(resultsSent(fake, 2)[0])).toContain("not two, please");
    // Nothing typed at the question reached the conversation's prompt.
    expect(screen.split("\n").at(-1)).toMatch(/^› ?$/);
  });

  it("Ctrl-C at the question stops the turn, as anywhere else in it", async () => {
    fake = await startFakeAnthropic([call("Bash", { command: "touch one" }), text("never")]);
    pane = start(fake);
    await pane.until((s) => PROMPT.test(s), "the prompt");
    pane.keys(["make a file", "Enter"]);
    await pane.until((s) => s.includes("(press y, a or n"), "the question");
    pane.keys(["C-c"]);
    await pane.until((s) => s.includes("stopping this turn"), "the turn to stop");
    const screen = await settled(pane);
    expect(existsSync(path.join(dir, "one"))).toBe(false);
    expect(screen).not.toMatch(FRAME);
    expect(screen).not.toMatch(/ExitPromptError|\bat .*\.m?js:\d+/);
    expect(pane.alive()).toBe(true);
  });

  it("Ctrl-D at the question ends the input there: no one answered, and the conversation goes on", async () => {
    fake = await startFakeAnthropic([call("Bash", { command: "touch one" }), text("understood")]);
    pane = start(fake);
    await pane.until((s) => PROMPT.test(s), "the prompt");
    pane.keys(["make a file", "Enter"]);
    await pane.until((s) => s.includes("(press y, a or n"), "the question");
    pane.keys(["C-d"]);
    const screen = await pane.until((s) => /— done/.test(s), "the end of the turn");
    expect(screen).toContain("no answer: the input ended (Ctrl-D)");
    expect(resultText(resultsSent(fake, 1)[0])).toContain("no one answered");
    expect(existsSync(path.join(dir, "one"))).toBe(false);
    await settled(pane);
    expect(pane.alive()).toBe(true);
  });
});
