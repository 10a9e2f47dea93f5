import { describe, expect, it } from "vitest";
import { until } from "./until.js";

describe("until", () => {
  it("resolves with the predicate's first truthy value", async () => {
    let calls = 0;
    await expect(
      until(() => (++calls >= 3 ? `seen at ${calls}` : undefined), { what: "x", everyMs: 1 }),
    ).resolves.toBe("seen at 3");
  });

  it("fails naming what it waited for, instead of giving up in silence", async () => {
    await expect(until(() => false, { what: "the pid file", timeoutMs: 30, everyMs: 5 })).rejects.toThrow(
      "timed out after 30 ms waiting for the pid file",
    );
  });

  it("rejects at once with the predicate's own error", async () => {
    const boom = new Error("unreadable");
    await expect(
      until(
        () => {
          throw boom;
        },
        { what: "x" },
      ),
    ).rejects.toBe(boom);
  });
});
