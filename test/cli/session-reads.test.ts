import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect } from "vitest";
import { test as it } from "../support/fixture.js";
import { call, resultsSent, text } from "../support/script.js";

const resultText = (r: { content?: unknown } | undefined) =>
  typeof r?.content === "string" ? r.content : JSON.stringify(r?.content);

/**
 * Read-before-edit belongs to the session: a resumed session may edit what it read in an earlier
 * run, and an edit of a file not read fails before anyone is asked to approve it. The last test's
 * run goes through the CLI's main() in this process; the others cross the built CLI.
 */
describe("what a session read", () => {
  it("run --resume ID may edit a file the session read in an earlier run", async ({
    dir,
    project,
    fake,
    cli,
  }) => {
    project({ "agent.md": "---\nallowed-tools: Read, Edit\n---\nYou help.\n", "a.txt": "alpha\n" });
    fake.push(call("Read", { file_path: path.join(dir, "a.txt") }), text("read it"));
    const first = await cli(["run", "-p", "--output-format", "json", "read a.txt"]);
    const sessionId = (JSON.parse(first.stdout) as { session_id: string }).session_id;
    fake.push(call("Edit", { file_path: "a.txt", old_string: "alpha", new_string: "beta" }), text("edited"));
    const second = await cli(["run", "--resume", sessionId, "-p", "change alpha to beta"]);
    expect(second.stdout).toBe("edited\n");
    expect(resultText(resultsSent(fake, 3)[0])).toContain("Edited");
    expect(readFileSync(path.join(dir, "a.txt"), "utf8")).toBe("beta\n");
  });

  // In this process (main), the file changes within a tick of the clock of the transcript's last
  // write, as a script's change may: the same modification time must count as a change.
  it("a file changed on disk after the session read it must be read again", async ({
    dir,
    project,
    fake,
    main,
  }) => {
    project({ "agent.md": "---\nallowed-tools: Read, Edit\n---\nYou help.\n", "a.txt": "alpha\n" });
    fake.push(call("Read", { file_path: "a.txt" }), text("read it"));
    const first = await main(["run", "-p", "--output-format", "json", "read a.txt"]);
    const sessionId = (JSON.parse(first.stdout) as { session_id: string }).session_id;
    project({ "a.txt": "alpha gamma\n" });
    fake.push(call("Edit", { file_path: "a.txt", old_string: "alpha", new_string: "beta" }), text("no"));
    await main(["run", "--resume", sessionId, "-p", "change alpha to beta"]);
    expect(resultText(resultsSent(fake, 3)[0])).toContain("has changed on disk since it was read");
    expect(readFileSync(path.join(dir, "a.txt"), "utf8")).toBe("alpha gamma\n");
  });

  it("an Edit of a file not read fails for that before any approval is sought", async ({
    dir,
    project,
    fake,
    main,
  }) => {
    // No agent.md: an Edit needs a user's approval, which `run` cannot ask for.
    project({ "a.txt": "alpha\n" });
    fake.push(call("Edit", { file_path: "a.txt", old_string: "alpha", new_string: "beta" }), text("ok"));
    await main(["run", "-p", "change it"]);
    const said = resultText(resultsSent(fake, 1)[0]);
    expect(said).toContain("has not been read in this run. Read it first, then edit.");
    expect(said).not.toContain("approval");
    expect(readFileSync(path.join(dir, "a.txt"), "utf8")).toBe("alpha\n");
  });
});
