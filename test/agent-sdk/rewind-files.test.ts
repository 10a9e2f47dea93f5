import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { RewindFilesResult } from "@anthropic-ai/claude-agent-sdk";
import { describe, expect } from "vitest";
import { ofType, sdkQuery, userTurns } from "../support/agent-sdk.js";
import { test as it } from "../support/fixture.js";
import { call, text } from "../support/script.js";

const AGENT = "---\nallowed-tools: Read, Write\n---\nBe brief.\n";

describe("the Agent SDK's file checkpointing", () => {
  it("enableFileCheckpointing and rewindFiles(userMessageId): a dry run says what would change, then the files are put back and a created one removed", async ({
    dir,
    env,
    fake,
    project,
  }) => {
    project({ "agent.md": AGENT, "a.txt": "one\n" });
    fake.push(
      call("Read", { file_path: "a.txt" }),
      call("Write", { file_path: "a.txt", content: "two\n" }),
      call("Write", { file_path: "b.txt", content: "new\n" }),
      text("done"),
      text("second answer"),
    );
    const turns = userTurns(["edit the files", "and then?"]);
    let dry: RewindFilesResult | undefined;
    let real: RewindFilesResult | undefined;
    let seenAfterEdit = "";
    let promptId: string | undefined;
    const run = await sdkQuery(
      turns.prompt,
      {
        cwd: dir,
        env,
        enableFileCheckpointing: true,
        permissionMode: "acceptEdits",
        extraArgs: { "replay-user-messages": null },
      },
      async (m, q) => {
        // The user message said back (--replay-user-messages) carries the id rewindFiles takes.
        if (m.type === "user" && (m as { isReplay?: boolean }).isReplay) promptId ??= m.uuid;
        if (m.type !== "result" || dry) return;
        seenAfterEdit = readFileSync(path.join(dir, "a.txt"), "utf8");
        dry = await q.rewindFiles(promptId as string, { dryRun: true });
        expect(readFileSync(path.join(dir, "a.txt"), "utf8")).toBe("two\n");
        real = await q.rewindFiles(promptId as string);
        turns.next();
      },
    );
    expect(run.error, run.stderr).toBeUndefined();
    expect(seenAfterEdit).toBe("two\n");
    expect(dry).toMatchObject({ canRewind: true });
    expect([...(dry?.filesChanged ?? [])].sort()).toEqual([path.join(dir, "a.txt"), path.join(dir, "b.txt")]);
    expect(real).toMatchObject({ canRewind: true, skippedLinks: 0 });
    expect(readFileSync(path.join(dir, "a.txt"), "utf8")).toBe("one\n");
    expect(existsSync(path.join(dir, "b.txt"))).toBe(false);
    expect(ofType(run, "result")).toHaveLength(2);
  });

  it("rewindFiles is an error when checkpointing is off, and says so for an unknown message", async ({
    dir,
    env,
    fake,
    project,
  }) => {
    project({ "agent.md": AGENT });
    fake.push(text("one"), text("two"), text("three"), text("four"));
    const errors: string[] = [];
    let unknown: RewindFilesResult | undefined;
    const off = userTurns(["hello", "bye"]);
    await sdkQuery(off.prompt, { cwd: dir, env }, async (m, q) => {
      if (m.type !== "result" || errors.length > 0) return;
      await q.rewindFiles("no-such-message").catch((e: Error) => errors.push(e.message));
      off.next();
    });
    expect(errors.join("")).toContain("file checkpointing is not enabled");
    const on = userTurns(["hello", "bye"]);
    await sdkQuery(on.prompt, { cwd: dir, env, enableFileCheckpointing: true }, async (m, q) => {
      if (m.type !== "result" || unknown) return;
      unknown = await q.rewindFiles("no-such-message");
      on.next();
    });
    expect(unknown).toMatchObject({
      canRewind: false,
      error: expect.stringContaining("no user message 'no-such-message'"),
    });
  });
});
