// The REPL's screens, as a person sees them in a real terminal (tmux, 120×40), against the fake
// Anthropic server: each state the issue names, saved as text (`capture-pane -p -e`, with its
// colours: NAME.ans; without: NAME.txt) and, where Chromium is at /usr/bin/chromium, as a picture
// (NAME.png: the capture turned into HTML and photographed by playwright-core).
//
//   npm run build && npx jiti scripts/repl-screens.ts [FOLDER]     (default: a new temp folder)
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { type FakeAnthropic, type ScriptStep, startFakeAnthropic } from "../test/support/fake-anthropic.js";
import { REPO_ROOT } from "../test/support/fixtures.js";
import { call, calls, text, use } from "../test/support/script.js";
import { agentmdInTmux, hasTmux, type Pane } from "../test/support/tmux.js";

const CHROMIUM = "/usr/bin/chromium";

interface Scene {
  readonly name: string;
  /** The project's files. */
  readonly files: Readonly<Record<string, string>>;
  readonly script: ScriptStep[];
  /** Brings the screen to the state to capture. */
  readonly play: (pane: Pane) => Promise<unknown>;
}

const prompt = (p: Pane) => p.until((s) => /^›/m.test(s), "the prompt");
const say = async (p: Pane, line: string) => {
  await prompt(p);
  p.keys([line], true);
  p.keys(["Enter"]);
};
const CALC = "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n";
const NO_AGENT = { "CLAUDE.md": "A small calculator.\n", "src/calc.py": CALC };
const HELPER = (tools: string) => ({
  "agent.md": `---\nname: helper\nallowed-tools: ${tools}\n---\nHelp.\n`,
  "src/calc.py": CALC,
  "README.md": "# calc\n\nAdds and subtracts.\n",
});

const SCENES: Scene[] = [
  {
    name: "01-edit-approval-diff",
    files: NO_AGENT,
    script: [
      call("Edit", {
        file_path: "src/calc.py",
        old_string: "    return a - b\n\n\ndef sub",
        new_string: "    return a + b\n\n\ndef sub",
      }),
      text("Fixed."),
    ],
    play: async (p) => {
      await say(p, "fix add in src/calc.py");
      await p.until((s) => s.includes("(press y, a or n"), "the question");
    },
  },
  {
    name: "02-write-preview",
    files: NO_AGENT,
    script: [
      call("Write", {
        file_path: "src/test_calc.py",
        content: "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
      }),
      text("Added a test."),
    ],
    play: async (p) => {
      await say(p, "add a test");
      await p.until((s) => s.includes("(press y, a or n"), "the question");
    },
  },
  {
    name: "03-select-moved-to-no-then-why",
    files: NO_AGENT,
    script: [call("Bash", { command: "git push origin main" }), text("Understood, not pushing.")],
    play: async (p) => {
      await say(p, "push it");
      await p.until((s) => s.includes("(press y, a or n"), "the question");
      p.keys(["Down", "Down", "Enter"]);
      await p.until((s) => s.includes("why? (the model is told"), "the reason's question");
      p.keys(["not before the review"], true);
      await p.until((s) => s.includes("› not before the review"), "the reason typed");
    },
  },
  {
    name: "04-answered-one-key",
    files: NO_AGENT,
    script: [
      call("Bash", { command: "touch CHANGES.md" }),
      call("Bash", { command: "touch NOTES.md" }),
      text("Both made."),
    ],
    play: async (p) => {
      await say(p, "make the release files");
      await p.until((s) => s.includes("(press y, a or n"), "the question");
      p.keys(["a"], true);
      await p.until((s) => /— (done|stopped|failed)/.test(s), "the end of the turn");
    },
  },
  {
    name: "05-denial-with-advice",
    files: HELPER("Read, Bash(git status:*)"),
    script: [call("Bash", { command: "rm -rf build && git status" }), text("I may not remove build/.")],
    play: async (p) => {
      await say(p, "clean up");
      await p.until((s) => /— (done|stopped|failed)/.test(s), "the end of the turn");
    },
  },
  {
    name: "06-help",
    files: {
      ...HELPER("Read"),
      "commands/review.md": "---\ndescription: Review a change.\n---\nReview $ARGUMENTS.\n",
    },
    script: [],
    play: async (p) => {
      await say(p, "/help");
      await p.until((s) => s.includes("commands:"), "the help");
    },
  },
  {
    name: "07-markdown-answer",
    files: HELPER("Read"),
    script: [
      text(
        "The bug is in `add`: it **subtracts**.\n\n```python\ndef add(a, b):\n    return a + b\n```\n\n| function | before | after |\n|---|---|---|\n| add(2, 3) | -1 | 5 |\n\n- run the tests\n- then commit\n",
      ),
    ],
    play: async (p) => {
      await say(p, "what is wrong?");
      await p.until((s) => s.includes("— done"), "the answer");
    },
  },
  {
    name: "08-tool-lines",
    files: HELPER("Read, Grep, Glob, Bash"),
    script: [
      calls(
        use("Read", { file_path: "src/calc.py" }),
        use("Grep", { pattern: "def ", path: "src" }),
        use("Bash", { command: "python3 -c 'print(2 + 3)'", description: "Add two numbers" }),
      ),
      text("Read, searched and ran."),
    ],
    play: async (p) => {
      await say(p, "look around");
      await p.until((s) => s.includes("— done"), "the end of the turn");
    },
  },
  {
    name: "09-ctrl-c-waiting-for-the-model",
    files: HELPER("Read"),
    script: [{ kind: "hang", before: [] }],
    play: async (p) => {
      await say(p, "think hard");
      await p.until((s) => /waiting for the model · \d/.test(s), "the spinner");
      p.keys(["C-c"]);
      await p.until((s) => s.includes("stopping this turn"), "the turn to stop");
      await say(p, "/cost");
      await p.until((s) => s.includes("this conversation:"), "the /cost line");
    },
  },
  {
    name: "10-ctrl-c-while-a-tool-runs",
    files: HELPER("Bash"),
    script: [call("Bash", { command: "echo building; sleep 30" }), text("never")],
    play: async (p) => {
      await say(p, "build it");
      await p.until((s) => /running Bash · \d/.test(s), "the tool's spinner");
      p.keys(["C-c"]);
      await p.until((s) => s.includes("stopping this turn"), "the turn to stop");
      await say(p, "/cost");
      await p.until((s) => s.includes("this conversation:"), "the /cost line");
    },
  },
];

async function main(): Promise<number> {
  if (!hasTmux) {
    process.stderr.write("tmux is not installed (apt-get install tmux)\n");
    return 1;
  }
  if (!existsSync(path.join(REPO_ROOT, "dist/bundle"))) {
    process.stderr.write("build the CLI first: npm run build\n");
    return 1;
  }
  const out = path.resolve(process.argv[2] ?? mkdtempSync(path.join(os.tmpdir(), "agentmd-screens-")));
  mkdirSync(out, { recursive: true });
  const captured: { name: string; ansi: string }[] = [];
  for (const scene of SCENES) {
    const ansi = await capture(scene);
    writeFileSync(path.join(out, `${scene.name}.ans`), `${ansi}\n`);
    writeFileSync(path.join(out, `${scene.name}.txt`), `${stripAnsi(ansi)}\n`);
    captured.push({ name: scene.name, ansi });
    process.stdout.write(`${scene.name}\n`);
  }
  if (existsSync(CHROMIUM)) await photograph(captured, out);
  else process.stdout.write(`no ${CHROMIUM}: text screens only\n`);
  process.stdout.write(`screens in ${out}\n`);
  return 0;
}

/** One scene in a fresh project and terminal: the screen at the end of its play. */
async function capture(scene: Scene): Promise<string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "agentmd-scene-"));
  let fake: FakeAnthropic | undefined;
  let pane: Pane | undefined;
  try {
    for (const [file, body] of Object.entries(scene.files)) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), body);
    }
    fake = await startFakeAnthropic(scene.script);
    pane = agentmdInTmux(dir, { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HOME: dir });
    await scene.play(pane);
    // The screen names the temp folder: the screens say "~/project" instead.
    return pane.screen(true).replaceAll(dir, "~/project");
  } finally {
    pane?.close();
    await fake?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Each capture as HTML (ansi-to-html), photographed in headless Chromium (playwright-core). */
async function photograph(screens: readonly { name: string; ansi: string }[], out: string): Promise<void> {
  const { default: Convert } = await import("ansi-to-html");
  const { chromium } = await import("playwright-core");
  const browser = await chromium.launch({ executablePath: CHROMIUM });
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    for (const { name, ansi } of screens) {
      const html = new Convert({ fg: "#d0d0d0", bg: "#1e1e1e", escapeXML: true }).toHtml(ansi);
      await page.setContent(
        `<html><body style="margin:0;background:#1e1e1e"><pre id="t" style="display:inline-block;margin:0;padding:12px;font:14px/1.25 'DejaVu Sans Mono',monospace;color:#d0d0d0;background:#1e1e1e;min-width:120ch;min-height:40lh">${html}</pre></body></html>`,
      );
      await page.locator("#t").screenshot({ path: path.join(out, `${name}.png`) });
    }
  } finally {
    await browser.close();
  }
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences are what it removes
const stripAnsi = (s: string) => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "");

process.exitCode = await main();
