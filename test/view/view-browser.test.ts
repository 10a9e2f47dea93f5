/// <reference lib="dom" />
// Its page.evaluate callbacks run in the browser: they are typed against the DOM.
import { execFileSync } from "node:child_process";
import { closeSync, constants, openSync, writeFileSync, writeSync } from "node:fs";
import path from "node:path";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { hasChromium, launchBrowser, type RunningView, startView } from "../support/browser.js";
import type { RecordedRequest, Scripted } from "../support/fake-anthropic.js";
import { test } from "../support/fixture.js";
import { hasRedis, startRedis } from "../support/redis-server.js";
import { until } from "../support/until.js";
import { VIEW_PROJECT, VIEW_PROMPT, viewSessionScript, XSS } from "../support/view-session.js";

// `agentmd view` in a real browser: Debian's headless Chromium, driven by playwright-core, on
// sessions made by the built CLI against the fake Anthropic server.

let browser: Browser;
beforeAll(async () => {
  if (hasChromium) browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

async function opened(view: RunningView, width = 1200): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  const problems: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(`${m.text()} (${m.location().url})`);
  });
  page.on("pageerror", (e) => problems.push(e.message));
  await page.goto(view.url);
  return { page, problems };
}

/** The rows' text of the tree, one string a row, as a person reads them. */
const rows = (page: Page) =>
  page
    .locator('[role="treeitem"] > .row')
    .evaluateAll((all) =>
      all.map((row) => Array.from(row.querySelectorAll(".part"), (p) => p.textContent).join(" ")),
    );
/** One row's text, its parts joined by spaces (as the screen shows them side by side). */
const rowText = (page: Page, id: string) =>
  page
    .locator(`[data-id="${id}"] > .row`)
    .evaluate((row) => Array.from(row.querySelectorAll(".part"), (p) => p.textContent).join(" "));
/**
 * Lets every `cat gate` waiting now go on: the fifo is opened without blocking (no reader: ENXIO,
 * nothing to let go), written and closed, which ends each reader's cat.
 */
function openGate(gate: string): void {
  try {
    const fd = openSync(gate, constants.O_WRONLY | constants.O_NONBLOCK);
    writeSync(fd, "open\n");
    closeSync(fd);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENXIO") throw e;
  }
}

const focused = (page: Page) =>
  page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.id);

describe.runIf(hasChromium)("agentmd view in headless Chromium", () => {
  test("shows a real multi-agent session as its tree, with each call's decision and rule, markup as text", async ({
    project,
    fake,
    cli,
    dir,
    env,
  }) => {
    project(VIEW_PROJECT);
    fake.push(...viewSessionScript());
    expect((await cli(["run", VIEW_PROMPT])).code).toBe(0);
    const view = await startView([], { cwd: dir, env });
    try {
      const { page, problems } = await opened(view);
      const session = page.getByRole("link", { name: VIEW_PROMPT });
      await session.waitFor();
      await expect(page.locator(".card .meta").first().innerText()).resolves.toMatch(
        /done[\s\S]*4 turns[\s\S]*\$0\.0\d+/,
      );
      await session.click();
      await page.getByRole("tree").waitFor();
      const text = (await rows(page)).join("\n");
      expect(text).toMatch(/main agent\s+main\s+claude-sonnet-5-5\s+done/);
      expect(text).toMatch(/Task\s+helper\s+allowed\s+Task\(helper\) · agent\.md:2/);
      expect(text).toMatch(/subagent\s+helper/);
      expect(text).toMatch(/skill\s+skill:notes|skill\s+notes/);
      expect(text).toMatch(/Bash\s+git push origin main\s+denied\s+Bash\(git push:\*\) · agent\.md:3/);
      // The denial is listed above the tree, and leads to its row.
      await page
        .getByRole("button", { name: /git push origin main — denied by Bash\(git push:\*\) at agent\.md:3/ })
        .click();
      expect(await focused(page)).toBe("c:toolu_push");
      // The page's text, opened, is shown as text: no script ran, no image was made.
      await page.locator('[data-id="c:toolu_read"] > .row').click();
      await page.locator('[data-id="c:toolu_read:result"] > .row').click();
      const shown = await page.locator('[data-id="c:toolu_read:result"] pre').innerText();
      expect(shown).toContain(XSS);
      expect(await page.title()).not.toBe("owned");
      expect(await page.locator("main img, main script").count()).toBe(0);
      expect(problems).toEqual([]);
      // Opening the helper's call shows its own Bash call, under it.
      await page.locator('[data-id="c:toolu_echo"] > .row').click();
      await expect(page.locator('[data-id="c:toolu_echo:result"]').count()).resolves.toBe(1);
    } finally {
      expect(await view.stop()).toBe(0);
    }
  }, 60_000);

  test("is read with the keyboard alone, and fits a 400 px window", async ({
    project,
    fake,
    cli,
    dir,
    env,
  }) => {
    project(VIEW_PROJECT);
    fake.push(...viewSessionScript());
    expect((await cli(["run", VIEW_PROMPT])).code).toBe(0);
    const view = await startView([], { cwd: dir, env });
    try {
      const { page } = await opened(view, 400);
      const link = page.getByRole("link", { name: VIEW_PROMPT });
      await link.waitFor();
      await link.focus();
      await page.keyboard.press("Enter");
      await page.getByRole("tree").waitFor();
      // Tab reaches the tree (one row of it is in the Tab order), and arrows move within it.
      for (let i = 0; i < 20 && (await focused(page)) === undefined; i++) await page.keyboard.press("Tab");
      const top = await focused(page);
      expect(top).toMatch(/^h:run-/);
      await page.keyboard.press("ArrowDown");
      expect(await focused(page)).toBe(`${top}:prompt`);
      await page.keyboard.press("ArrowDown");
      expect(await focused(page)).toMatch(/^t:run-.*:1$/);
      await page.keyboard.press("ArrowDown");
      expect(await focused(page)).toBe("c:toolu_task");
      const task = page.locator('[data-id="c:toolu_task"]');
      expect(await task.getAttribute("aria-expanded")).toBe("true");
      await page.keyboard.press("ArrowLeft");
      expect(await task.getAttribute("aria-expanded")).toBe("false");
      await page.keyboard.press("ArrowLeft");
      expect(await focused(page)).toMatch(/^t:run-.*:1$/);
      await page.keyboard.press("ArrowDown");
      await page.keyboard.press("Enter");
      expect(await task.getAttribute("aria-expanded")).toBe("true");
      await page.keyboard.press("ArrowRight");
      expect(await focused(page)).toBe("c:toolu_task:input");
      await page.keyboard.press(" ");
      expect(await page.locator('[data-id="c:toolu_task:input"] pre').innerText()).toContain(
        '"subagent_type": "helper"',
      );
      // The focused row is marked, and nothing is wider than the window.
      const outline = await page.evaluate(
        () =>
          getComputedStyle((document.activeElement as HTMLElement).querySelector(".row") as Element)
            .outlineStyle,
      );
      expect(outline).toBe("solid");
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(400);
    } finally {
      await view.stop();
    }
  }, 60_000);

  test("a running session's page grows as its transcript does", async ({ project, fake, cli, dir, env }) => {
    project({ "agent.md": "---\nallowed-tools: Bash(cat:*)\n---\nWork.\n" });
    const gate = path.join(dir, "gate");
    execFileSync("mkfifo", [gate]);
    fake.push(
      {
        kind: "message",
        content: [{ type: "tool_use", id: "toolu_wait", name: "Bash", input: { command: "cat gate" } }],
      },
      { kind: "message", content: [{ type: "text", text: "the gate opened" }] },
    );
    const running = cli(["run", "wait for the gate"]);
    const view = await startView([], { cwd: dir, env });
    try {
      const { page } = await opened(view);
      await page.getByRole("link", { name: "wait for the gate" }).click();
      const call = page.locator('[data-id="c:toolu_wait"] > .row');
      await call.waitFor();
      expect(await rowText(page, "c:toolu_wait")).toMatch(/Bash cat gate running/);
      expect(await page.locator(".facts").innerText()).toMatch(/state\s+running/);
      const ended = running.then((r) => r.code);
      await until(
        async () => {
          openGate(gate);
          return (
            (await Promise.race([ended, new Promise((r) => setTimeout(r, 100, undefined))])) !== undefined
          );
        },
        { what: "the run to end" },
      );
      expect(await ended).toBe(0);
      await page.locator(".facts", { hasText: /state\s*done/ }).waitFor();
      await until(async () => /allowed/.test(await rowText(page, "c:toolu_wait")), {
        what: "the call's end",
      });
      expect(await rowText(page, "c:toolu_wait")).toMatch(
        /Bash cat gate allowed Bash\(cat:\*\) · agent\.md:2/,
      );
      expect((await rows(page)).join("\n")).toContain("the gate opened");
    } finally {
      await view.stop();
    }
  }, 60_000);

  test.runIf(hasRedis)(
    "shows a queue's running batch, its items changing state, and their sessions",
    async ({ project, fake, cli, dir, env }) => {
      project({ "agent.md": "---\nallowed-tools: Bash(cat:*)\n---\nWork.\n" });
      const gate = path.join(dir, "gate");
      execFileSync("mkfifo", [gate]);
      const answer = (req: RecordedRequest): Scripted => {
        const last = (req.body.messages as MessageParam[]).at(-1);
        const answered = Array.isArray(last?.content) && last.content.some((b) => b.type === "tool_result");
        return answered
          ? { kind: "message", content: [{ type: "text", text: "passed the gate" }] }
          : {
              kind: "message",
              content: [{ type: "tool_use", name: "Bash", input: { command: "cat gate" } }],
            };
      };
      fake.push(...Array.from({ length: 12 }, () => answer));
      const redis = await startRedis();
      writeFileSync(
        path.join(dir, "jobs.jsonl"),
        ["a", "b", "c"].map((id) => JSON.stringify({ id, prompt: `item ${id}` })).join("\n"),
      );
      expect((await cli(["enqueue", "jobs.jsonl", "--redis", redis.url])).code).toBe(0);
      const view = await startView(["--redis", redis.url], { cwd: dir, env });
      let worker: Promise<unknown> | undefined;
      let stopWorker = () => {};
      try {
        const { page } = await opened(view);
        await page.getByRole("link", { name: "Batches" }).click();
        await page.getByRole("link", { name: "jobs" }).click();
        const states = () =>
          page.locator(".item").evaluateAll((items) => items.map((i) => (i as HTMLElement).dataset.state));
        await until(async () => (await states()).join() === "waiting,waiting,waiting", {
          what: "three waiting items",
        });
        worker = cli(["worker", "--redis", redis.url, "--concurrency", "3"], {
          onStart: (child) => {
            stopWorker = () => child.kill("SIGKILL");
          },
        });
        await until(async () => (await states()).join() === "running,running,running", {
          what: "three running items",
          timeoutMs: 20_000,
        });
        await until(
          async () => {
            openGate(gate);
            return (await states()).join() === "done,done,done";
          },
          { what: "three done items", timeoutMs: 20_000 },
        );
        expect(await page.locator(".meta").first().innerText()).toMatch(/3\/3[\s\S]*3 done[\s\S]*0 failed/);
        // An item's session, kept in Redis by its worker, opens as any session does.
        await page.getByRole("link", { name: "a", exact: true }).click();
        await page.locator(".facts", { hasText: /state\s*done/ }).waitFor();
        expect((await rows(page)).join("\n")).toMatch(/Bash\s+cat gate\s+allowed/);
        expect(await page.locator("main .id").first().innerText()).toContain("kept in Redis");
      } finally {
        stopWorker();
        await worker;
        await view.stop();
        await redis.stop();
      }
    },
    90_000,
  );
});
