import { describe, expect, it } from "vitest";
import { closeBull } from "../../src/batch/connect-redis.js";

/** A BullMQ-like object whose close settles as told, and which notes a forced disconnect. */
function closable(close: () => Promise<void>) {
  const seen = { disconnected: 0 };
  return {
    seen,
    close,
    disconnect: async () => {
      seen.disconnected++;
    },
  };
}

describe("closeBull", () => {
  it("cuts the connections of a close that never settles (QueueEvents after a Redis restart)", async () => {
    const c = closable(() => new Promise<void>(() => {}));
    await closeBull(c, 20);
    expect(c.seen.disconnected).toBe(1);
  });

  it("leaves a close that finishes alone, and one that fails is cut without a rejection", async () => {
    const ok = closable(async () => {});
    await closeBull(ok, 1_000);
    expect(ok.seen.disconnected).toBe(0);
    const failing = closable(async () => {
      throw new Error("Connection is closed.");
    });
    await expect(closeBull(failing, 1_000)).resolves.toBeUndefined();
    expect(failing.seen.disconnected).toBe(1);
  });
});
