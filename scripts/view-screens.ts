// Screenshots of `agentmd view` (PNG): the sessions list, a session's tree (wide and narrow) and a
// running batch on a real Redis, of sessions the built CLI makes against the fake Anthropic server.
// Run after `npm run build`:  npx jiti scripts/view-screens.ts [FOLDER]   (default: a temp folder)
import { execFileSync } from "node:child_process";
import { closeSync, constants, mkdirSync, mkdtempSync, openSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { launchBrowser, startView } from "../test/support/browser.js";
import { runBinAsync } from "../test/support/cli.js";
import { type RecordedRequest, type Scripted, startFakeAnthropic } from "../test/support/fake-anthropic.js";
import { tempDir } from "../test/support/fixtures.js";
import { startRedis } from "../test/support/redis-server.js";
import { writeFiles } from "../test/support/tools.js";
import { until } from "../test/support/until.js";
import { VIEW_PROJECT, VIEW_PROMPT, viewSessionScript } from "../test/support/view-session.js";

const out = path.resolve(process.argv[2] ?? mkdtempSync(path.join(tmpdir(), "agentmd-view-screens-")));
mkdirSync(out, { recursive: true });
const { dir, cleanup } = tempDir();
const fake = await startFakeAnthropic([]);
const env = {
  ANTHROPIC_API_KEY: "k",
  ANTHROPIC_BASE_URL: fake.url,
  HOME: path.join(dir, "home"),
  PATH: process.env.PATH ?? "",
};
const cli = (args: string[]) => runBinAsync(args, { cwd: dir, env });

writeFiles(dir, {
  ...VIEW_PROJECT,
  "agent.md": VIEW_PROJECT["agent.md"]?.replace("Read,", "Read, Bash(cat:*),") ?? "",
});
fake.push(...viewSessionScript());
await cli(["run", VIEW_PROMPT]);
fake.push({ kind: "message", content: [{ type: "text", text: "Nothing to review today." }] });
await cli(["run", "review the open pull requests"]);

// The batch's items wait at a fifo until the shots of them running are taken.
const gate = path.join(dir, "gate");
execFileSync("mkfifo", [gate]);
const answer = (req: RecordedRequest): Scripted => {
  const last = (req.body.messages as MessageParam[]).at(-1);
  const answered = Array.isArray(last?.content) && last.content.some((b) => b.type === "tool_result");
  return answered
    ? {
        kind: "message",
        usage: { input_tokens: 900, output_tokens: 120 },
        content: [{ type: "text", text: "done" }],
      }
    : {
        kind: "message",
        usage: { input_tokens: 800, output_tokens: 40 },
        content: [{ type: "tool_use", name: "Bash", input: { command: "cat gate" } }],
      };
};
fake.push(...Array.from({ length: 40 }, () => answer));
const redis = await startRedis();
const ids = ["pr-101", "pr-102", "pr-103", "pr-104", "pr-105", "pr-106"];
writeFileSync(
  path.join(dir, "reviews.jsonl"),
  ids.map((id) => JSON.stringify({ id, prompt: `review ${id}` })).join("\n"),
);
await cli(["enqueue", "reviews.jsonl", "--redis", redis.url]);

const view = await startView(["--redis", redis.url], { cwd: dir, env });
/** The view's data, asked for with the token of the address it printed. */
const data = async (route: string): Promise<unknown> => {
  const at = new URL(view.url);
  const auth = { authorization: `Bearer ${at.searchParams.get("token")}` };
  return (await fetch(new URL(route, at.origin), { headers: auth })).json();
};
const browser = await launchBrowser();
const shots: string[] = [];
const shoot = async (name: string, hash: string, width: number, ready: string) => {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  await page.goto(`${view.url}${hash}`);
  await page.locator(ready).first().waitFor();
  const file = path.join(out, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  shots.push(file);
  await page.close();
};
const openGate = () => {
  try {
    const fd = openSync(gate, constants.O_WRONLY | constants.O_NONBLOCK);
    writeSync(fd, "open\n");
    closeSync(fd);
  } catch {
    // no one waits at the gate now
  }
};
let worker: ReturnType<typeof runBinAsync> | undefined;
let stopWorker = () => {};
try {
  await shoot("sessions", "#/", 1000, ".card");
  const rows = (await data("/api/sessions")) as { id: string; title: string }[];
  const session = rows.find((r) => r.title === VIEW_PROMPT)?.id ?? "";
  await shoot("session-wide", `#/s/local/${session}`, 1200, '[role="tree"]');
  await shoot("session-narrow", `#/s/local/${session}`, 400, '[role="tree"]');
  worker = runBinAsync(["worker", "--redis", redis.url, "--concurrency", "3"], {
    cwd: dir,
    env,
    onStart: (child) => {
      stopWorker = () => child.kill("SIGKILL");
    },
  });
  const batch = async () =>
    (await data("/api/batch/reviews")) as {
      batch: { running: number; done: number };
    };
  await until(async () => (await batch()).batch.running === 3, {
    what: "three running items",
    timeoutMs: 30_000,
  });
  await shoot("batch-running", "#/b/reviews", 1000, ".item");
  await shoot("batches", "#/batches", 1000, ".card");
  await until(
    async () => {
      openGate();
      return (await batch()).batch.done === ids.length;
    },
    { what: "every item done", timeoutMs: 60_000 },
  );
  await shoot("batch-done", "#/b/reviews", 1000, ".item");
} finally {
  stopWorker();
  await worker;
  await browser.close();
  await view.stop();
  await redis.stop();
  await fake.close();
  cleanup();
}
console.log(shots.join("\n"));
