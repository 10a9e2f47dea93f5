import { spawnSync } from "node:child_process";
import {
  existsSync,
  lstatSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import { describe, expect } from "vitest";
import { WriteError } from "../../src/shared/errors.js";
import { withFileLock } from "../../src/shared/file-lock.js";
import { writeFileWhole } from "../../src/shared/write-whole.js";
import { test as it } from "../support/fixture.js";

/** A lock as another agentmd leaves it: its host, process id and token. */
const lockOf = (pid: number, host = hostname()) => JSON.stringify({ host, pid, token: "theirs" });

/** The id of a process that has ended (a real one, started and waited for). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
    encoding: "utf8",
  });
  return Number(r.stdout);
}

describe("withFileLock", () => {
  it.for<[string, () => string]>([
    ["a process that has ended", () => lockOf(deadPid())],
    ["this very process, but not this holding (a restarted PID 1)", () => lockOf(process.pid)],
  ])("takes over a lock left by %s, and leaves none behind", ([, lock], { dir }) => {
    const file = path.join(dir, "trust.json");
    writeFileSync(`${file}.lock`, lock());
    expect(withFileLock(file, () => "changed", { waitMs: 5_000 })).toBe("changed");
    expect(existsSync(`${file}.lock`)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("waits for a live holder, then says who holds it; an old lock is stale whoever it names", ({ dir }) => {
    const file = path.join(dir, "trust.json");
    writeFileSync(`${file}.lock`, lockOf(process.ppid));
    let ran = false;
    expect(() => withFileLock(file, () => (ran = true), { waitMs: 200 })).toThrow(WriteError);
    expect(() => withFileLock(file, () => (ran = true), { waitMs: 200 })).toThrow(
      `another agentmd holds its lock ${file}.lock (process ${process.ppid})`,
    );
    expect(ran).toBe(false);
    const old = new Date(Date.now() - 60_000);
    utimesSync(`${file}.lock`, old, old);
    expect(withFileLock(file, () => "changed", { waitMs: 200 })).toBe("changed");
  });

  it("a lock of another host is not judged by its process id", ({ dir }) => {
    const file = path.join(dir, "trust.json");
    writeFileSync(`${file}.lock`, lockOf(deadPid(), "another-host"));
    expect(() => withFileLock(file, () => 1, { waitMs: 200 })).toThrow(WriteError);
  });
});

describe("writeFileWhole", () => {
  it("writes where a symlink points (the link stays) and keeps the file's mode", ({ dir }) => {
    const real = path.join(dir, "dotfiles-settings.json");
    writeFileSync(real, "{}\n", { mode: 0o640 });
    const link = path.join(dir, "settings.json");
    symlinkSync(real, link);
    writeFileWhole(link, '{"a":1}\n');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, "utf8")).toBe('{"a":1}\n');
    expect(statSync(real).mode & 0o777).toBe(0o640);
    expect(readdirSync(dir).sort()).toEqual(["dotfiles-settings.json", "settings.json"]);
  });

  it("a folder in the way is one line naming it; nothing is written", ({ dir }) => {
    writeFileSync(path.join(dir, "home"), "a file");
    const file = path.join(dir, "home", ".claude", "settings.json");
    expect(() => writeFileWhole(file, "{}")).toThrow(
      `cannot write ${file}: ${path.join(dir, "home")} is a file, not a folder; nothing was changed`,
    );
  });
});
