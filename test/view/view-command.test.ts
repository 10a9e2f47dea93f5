import http from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { runCli } from "../support/cli.js";
import { tempDir } from "../support/fixtures.js";

describe("agentmd view's command line", () => {
  it("says what it does, and refuses bad usage, an unreachable Redis and a taken port with a message", async () => {
    const { dir, cleanup } = tempDir();
    const taken = http.createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    try {
      const help = await runCli(["view", "--help"], { cwd: dir });
      expect(help.stdout).toMatch(/127\.0\.0\.1[\s\S]*--redis URL[\s\S]*Example:\n {2}agentmd view /);
      const top = await runCli(["--help"], { cwd: dir });
      expect(top.stdout).toMatch(/\n {2}view {2,}a local web page/);
      for (const [args, message] of [
        [["--port", "70000"], "--port must be a whole number from 0 to 65535"],
        [["--queue", "q"], "--queue needs --redis URL"],
        [["extra"], "unexpected argument 'extra'"],
      ] as const) {
        const r = await runCli(["view", ...args], { cwd: dir });
        expect([r.code, r.stderr]).toEqual([2, expect.stringContaining(message)]);
      }
      const redis = await runCli(["view", "--redis", "redis://127.0.0.1:1"], { cwd: dir });
      expect([redis.code, redis.stderr]).toEqual([
        1,
        expect.stringMatching(/cannot reach Redis at redis:\/\/127\.0\.0\.1:1/),
      ]);
      const port = (taken.address() as AddressInfo).port;
      const busy = await runCli(["view", "--port", String(port)], { cwd: dir });
      expect([busy.code, busy.stderr]).toEqual([
        1,
        expect.stringContaining(`cannot listen on 127.0.0.1:${port}`),
      ]);
    } finally {
      taken.close();
      cleanup();
    }
  });
});
