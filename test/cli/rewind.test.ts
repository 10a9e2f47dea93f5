import { existsSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect } from "vitest";
import { test as it } from "../support/fixture.js";
import { call, text } from "../support/script.js";

/**
 * Rewind as a user meets it: chat's /rewind with piped input, `agentmd rewind`, --fork-session.
 * The runs that make a session and the first listing cross the built CLI; the rewinds and runs a
 * test checks after them run the CLI's main() in this process.
 */
const AGENT = "---\nname: helper\nallowed-tools: Read, Write, Edit, Bash(echo:*), Task\n---\nHelp.\n";
const sessionIds = (dir: string) =>
  readdirSync(path.join(dir, ".agentmd/sessions"))
    .filter((n) => n.endsWith(".jsonl"))
    .map((n) => n.slice(0, -".jsonl".length));
const messagesOf = (fake: { requests: { body: { messages: unknown } }[] }, i: number) =>
  JSON.stringify(fake.requests[i]?.body.messages);

describe("rewind through chat with piped input", () => {
  it("/rewind lists the prompts with their files and asks; code puts files back and removes created ones; conversation is what run --resume continues", async ({
    dir,
    fake,
    project,
    cli,
    main,
  }) => {
    project({ "agent.md": AGENT, "a.txt": "one\n" });
    fake.push(
      call("Read", { file_path: "a.txt" }),
      call("Write", { file_path: "a.txt", content: "two\n" }),
      text("edited a"),
      call("Write", { file_path: "b.txt", content: "new\n" }),
      call("Bash", { command: "echo hi" }),
      text("made b"),
      text("after the rewind"),
      text("resumed"),
    );
    const r = await cli(["chat", "--permission-mode", "acceptEdits"], {
      input:
        "PROMPT-ONE edit a\nPROMPT-TWO make b\n/rewind\n2 code\n/rewind 1 both\nPROMPT-THREE again\n/exit\n",
    });
    expect(r.code, r.stderr).toBe(0);
    // The listing: each prompt, the files it changed, and the Bash note.
    expect(r.stdout).toMatch(/1 {2}PROMPT-ONE edit a\n\s+changed a\.txt/);
    expect(r.stdout).toMatch(/2 {2}PROMPT-TWO make b\n\s+changed b\.txt; ran Bash/);
    expect(r.stdout).toContain("removed  b.txt");
    expect(r.stdout).toContain("prompt 2 ran Bash: what Bash changed is not in the checkpoints");
    expect(r.stdout).toContain("restored a.txt");
    expect(existsSync(path.join(dir, "b.txt"))).toBe(false);
    expect(readFileSync(path.join(dir, "a.txt"), "utf8")).toBe("one\n");
    // The next prompt goes on from just before prompt 1: none of the earlier conversation is sent.
    expect(messagesOf(fake, 6)).toContain("PROMPT-THREE");
    expect(messagesOf(fake, 6)).not.toContain("PROMPT-ONE");
    const [id] = sessionIds(dir);
    const resumed = await main(["run", "--resume", id as string, "and on"]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(messagesOf(fake, 7)).toContain("PROMPT-THREE");
    expect(messagesOf(fake, 7)).not.toContain("PROMPT-ONE");
    expect(messagesOf(fake, 7)).not.toContain("PROMPT-TWO");
  }, 90_000);

  it("a subagent's edits belong to the turn that started it, and are put back with it", async ({
    dir,
    fake,
    project,
    cli,
  }) => {
    project({
      "agent.md": AGENT,
      "agents/writer.md": "---\nname: writer\ndescription: Writes.\ntools: Read, Write\n---\nWrite.\n",
      "c.txt": "original\n",
    });
    fake.push(
      call("Task", { subagent_type: "writer", description: "w", prompt: "write c" }),
      call("Read", { file_path: path.join(dir, "c.txt") }),
      call("Write", { file_path: path.join(dir, "c.txt"), content: "by the subagent\n" }),
      text("written"),
      text("the subagent wrote c"),
    );
    const r = await cli(["chat", "--permission-mode", "acceptEdits"], {
      input: "delegate\n/rewind 1 code\n/exit\n",
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("restored c.txt");
    expect(readFileSync(path.join(dir, "c.txt"), "utf8")).toBe("original\n");
  }, 90_000);
});

describe("agentmd rewind", () => {
  it("lists the prompts; a file changed outside agentmd is a conflict, skipped unless --force; --dry-run changes nothing; a file the session may not write is skipped", async ({
    dir,
    fake,
    project,
    cli,
    main,
  }) => {
    project({ "agent.md": AGENT, "a.txt": "one\n" });
    fake.push(
      call("Read", { file_path: "a.txt" }),
      call("Edit", { file_path: "a.txt", old_string: "one", new_string: "two" }),
      text("ok"),
    );
    const ran = await cli(["chat", "--permission-mode", "acceptEdits"], { input: "PROMPT-EDIT\n" });
    expect(ran.code, ran.stderr).toBe(0);
    expect(readFileSync(path.join(dir, "a.txt"), "utf8")).toBe("two\n");
    const listed = await cli(["rewind"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/1 {2}PROMPT-EDIT\n\s+changed a\.txt/);
    writeFileSync(path.join(dir, "a.txt"), "changed by hand\n");
    const conflict = await main(["rewind", "1", "code"]);
    expect(conflict.code).toBe(3);
    expect(conflict.stdout).toContain("conflict a.txt: changed outside agentmd");
    expect(readFileSync(path.join(dir, "a.txt"), "utf8")).toBe("changed by hand\n");
    const dry = await main(["rewind", "1", "code", "--force", "--dry-run", "--json"]);
    expect(JSON.parse(dry.stdout)).toMatchObject({
      ok: true,
      files: { restored: [path.join(dir, "a.txt")] },
    });
    expect(readFileSync(path.join(dir, "a.txt"), "utf8")).toBe("changed by hand\n");
    const plan = await main(["rewind", "1", "code", "--force", "--permission-mode", "plan"]);
    expect(plan.code).toBe(3);
    expect(plan.stdout).toContain("skipped a.txt");
    expect(readFileSync(path.join(dir, "a.txt"), "utf8")).toBe("changed by hand\n");
    const forced = await main(["rewind", "1", "code", "--force"]);
    expect(forced.code, forced.stdout).toBe(0);
    expect(readFileSync(path.join(dir, "a.txt"), "utf8")).toBe("one\n");
    // The checkpoints go with the session.
    const [id] = sessionIds(dir);
    const kept = path.join(dir, ".agentmd/sessions", `${id}.checkpoints`);
    expect(existsSync(kept)).toBe(true);
    const rm = await main(["sessions", "rm", id as string]);
    expect(rm.code, rm.stderr).toBe(0);
    expect(existsSync(kept)).toBe(false);
    expect(sessionIds(dir)).toEqual([]);
  }, 90_000);

  it("writes nothing through a folder that has become a symbolic link out of the project", async ({
    dir,
    fake,
    project,
    cli,
    main,
  }) => {
    project({ "agent.md": AGENT, "sub/keep.txt": "k\n", "outside/x.txt": "new\n" });
    fake.push(call("Write", { file_path: "sub/x.txt", content: "new\n" }), text("made"));
    const ran = await cli(["chat", "--permission-mode", "acceptEdits"], { input: "make x\n" });
    expect(ran.code, ran.stderr).toBe(0);
    rmSync(path.join(dir, "sub"), { recursive: true });
    symlinkSync(path.join(dir, "outside"), path.join(dir, "sub"));
    const r = await main(["rewind", "1", "code", "--force"]);
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/skipped sub\/x\.txt: now leads to .*outside\/x\.txt/);
    expect(readFileSync(path.join(dir, "outside/x.txt"), "utf8")).toBe("new\n");
  }, 90_000);

  it("says what is missing: no session, a prompt out of range, a mode that is not one", async ({
    fake,
    project,
    cli,
    main,
  }) => {
    project({ "agent.md": AGENT });
    const none = await cli(["rewind"]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("no session yet");
    const bad = await main(["rewind", "1", "files"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("'files' is not code, conversation or both");
    fake.push(text("hi"));
    await main(["run", "hello"]);
    const far = await main(["rewind", "5", "both"]);
    expect(far.code).toBe(1);
    expect(far.stdout).toContain("no prompt 5 in this session: it has 1 prompt (1 to 1)");
  }, 90_000);
});

describe("--fork-session", () => {
  it("chat -r ID --fork-session goes on in a new session whose transcript and checkpoints start as copies; the original is unchanged", async ({
    dir,
    fake,
    project,
    cli,
    main,
  }) => {
    project({ "agent.md": AGENT });
    fake.push(
      call("Write", { file_path: "f.txt", content: "x\n" }),
      text("REMEMBER-ME"),
      text("in the fork"),
    );
    await main(["run", "--permission-mode", "acceptEdits", "make f"]);
    const [id] = sessionIds(dir);
    const before = readFileSync(path.join(dir, ".agentmd/sessions", `${id}.jsonl`), "utf8");
    const r = await cli(["chat", "-r", id as string, "--fork-session"], { input: "go on\n/rewind\n\n" });
    expect(r.code, r.stderr).toBe(0);
    expect(messagesOf(fake, 2)).toContain("REMEMBER-ME");
    const ids = sessionIds(dir);
    expect(ids).toHaveLength(2);
    const fork = ids.find((x) => x !== id) as string;
    expect(r.stdout).toContain(`session ${fork}`);
    // The fork lists the original's prompt with its file: its checkpoints came along.
    expect(r.stdout).toMatch(/1 {2}make f\n\s+changed f\.txt/);
    expect(readFileSync(path.join(dir, ".agentmd/sessions", `${id}.jsonl`), "utf8")).toBe(before);
    const bad = await cli(["chat", "--fork-session"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--fork-session needs --resume ID or --continue");
  }, 90_000);
});
