import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  identityOf,
  identityText,
  isAlive,
  ownIdentity,
  parseIdentity,
} from "../../src/shared/process-identity.js";

const startOf = (pid: number) => readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ")[19];

describe("a process's identity: its id, start time and boot", () => {
  it("names this process as /proc says it started", () => {
    const me = ownIdentity();
    expect(me.pid).toBe(process.pid);
    expect(me.started).toBe(startOf(process.pid));
    expect(me.boot).toMatch(/^[0-9a-f-]{36}$/);
    expect(isAlive(me)).toBe(true);
    expect(parseIdentity(identityText(me))).toEqual(me);
  });

  it("a live id with another start time, or from another boot, is not the process named (process 1 too)", () => {
    const me = ownIdentity();
    const other = String(Number(me.started) + 1);
    expect(isAlive({ ...me, started: other })).toBe(false);
    expect(isAlive({ ...me, boot: "00000000-0000-0000-0000-000000000000" })).toBe(false);
    const one = identityOf(1);
    expect(isAlive(one)).toBe(true);
    expect(isAlive({ ...one, started: String(Number(one.started) + 1) })).toBe(false);
  });

  it("a bare id (a lock written before) names whoever has the id; a gone process and rubbish are not alive", () => {
    expect(parseIdentity(String(process.pid))).toEqual({ pid: process.pid });
    expect(isAlive({ pid: process.pid })).toBe(true);
    expect(isAlive({ pid: 2 ** 22 + 1 })).toBe(false);
    for (const bad of ["", "x", "{}", '{"pid":-1}', "[1]", "0"]) expect(parseIdentity(bad)).toBeUndefined();
  });
});
