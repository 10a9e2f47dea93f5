import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { changeSignIn, readSignIn, serverUrlKey, signInFile } from "../../src/mcp/oauth-store.js";
import { runCli } from "../support/cli.js";
import { tempDir } from "../support/fixtures.js";
import { mcpJson, stdioServer } from "../support/mcp.js";
import { writeFiles } from "../support/tools.js";

/** The sign-in file: found by the exact URL only, written whole and readable by its owner alone. */
let dir: string;
let home: string;
let cleanup: () => void;

beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  home = path.join(dir, "home");
});
afterEach(() => cleanup());

const keep = (url: string, token: string) =>
  changeSignIn(home, url, () => ({
    name: "srv",
    tokens: { access_token: token, token_type: "bearer" },
    savedAt: "2026-01-01T00:00:00.000Z",
  }));

describe("a sign-in is found under its server's exact URL only", () => {
  it("no other URL finds it (property)", () => {
    fc.assert(
      fc.property(
        fc.webUrl({ withQueryParameters: true }),
        fc.webUrl({ withQueryParameters: true }),
        (a, b) => {
          fc.pre(serverUrlKey(a) !== serverUrlKey(b));
          keep(a, "tok-a");
          expect(readSignIn(home, b)).toBeUndefined();
          expect(readSignIn(home, a)?.tokens?.access_token).toBe("tok-a");
          changeSignIn(home, a, () => undefined);
        },
      ),
      { numRuns: 60 },
    );
  });

  it.each([
    ["another port", "https://mcp.example.com:8443/mcp"],
    ["another path", "https://mcp.example.com/other"],
    ["a trailing slash", "https://mcp.example.com/mcp/"],
    ["a query", "https://mcp.example.com/mcp?x=1"],
    ["another scheme", "http://mcp.example.com/mcp"],
    ["a subdomain", "https://evil.mcp.example.com/mcp"],
    ["a look-alike host", "https://mcp.example.com.evil.test/mcp"],
    ["user info", "https://attacker@mcp.example.com/mcp"],
  ])("%s finds nothing", (_, other) => {
    keep("https://mcp.example.com/mcp", "tok");
    expect(readSignIn(home, other)).toBeUndefined();
  });

  it("the same URL as the parser writes it finds it", () => {
    keep("https://mcp.example.com/mcp", "tok");
    expect(readSignIn(home, "HTTPS://MCP.example.com:443/mcp")?.tokens?.access_token).toBe("tok");
  });
});

describe("the sign-in file", () => {
  it("is 0600 in a 0700 folder, even when it was left readable by others", () => {
    keep("https://a.test/mcp", "tok");
    expect(statSync(signInFile(home)).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(signInFile(home))).mode & 0o777).toBe(0o700);
    chmodSync(signInFile(home), 0o644);
    keep("https://b.test/mcp", "tok");
    expect(statSync(signInFile(home)).mode & 0o777).toBe(0o600);
  });

  it("keeps every other server's entry when one changes", () => {
    keep("https://a.test/mcp", "ta");
    keep("https://b.test/mcp", "tb");
    changeSignIn(home, "https://a.test/mcp", () => undefined);
    expect(Object.keys(JSON.parse(readFileSync(signInFile(home), "utf8")).servers)).toEqual([
      "https://b.test/mcp",
    ]);
  });

  it("a file that is not a sign-in file is left as it is, and said so", () => {
    mkdirSync(path.dirname(signInFile(home)), { recursive: true });
    writeFileSync(signInFile(home), "{ not json");
    expect(() => keep("https://a.test/mcp", "t")).toThrow(/is not a sign-in file agentmd can read/);
    expect(readFileSync(signInFile(home), "utf8")).toBe("{ not json");
    expect(readSignIn(home, "https://a.test/mcp")).toBeUndefined();
  });
});

describe("agentmd mcp login and logout refuse what they cannot do", () => {
  it.each([
    ["login", "nope", "agentmd mcp login: no MCP server named 'nope' in DIR (its servers: local, remote)"],
    [
      "login",
      "local",
      "agentmd mcp login: MCP server 'local' is started as a command (stdio); only HTTP and SSE servers sign in",
    ],
    [
      "login",
      "remote",
      "agentmd mcp login: DIR is not trusted, so its servers were not started (remote); review them with 'agentmd trust'",
    ],
  ])("mcp %s %s", async (command, name, said) => {
    writeFiles(dir, {
      ".mcp.json": mcpJson({
        local: stdioServer("github"),
        remote: { type: "http", url: "http://127.0.0.1:9/mcp" },
      }),
    });
    const r = await runCli(["mcp", command, name], { cwd: dir, env: { HOME: home } });
    expect([r.code, r.stdout, r.stderr]).toEqual([1, "", `${said.replace("DIR", dir)}\n`]);
  });

  it("mcp login without a name is bad usage", async () => {
    const r = await runCli(["mcp", "login"], { cwd: dir, env: { HOME: home } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("mcp login NAME");
  });
});

describe("no run reads the user's sign-ins", () => {
  it.each([
    ["Read", (h: string) => ({ file_path: path.join(h, ".agentmd", "mcp-auth.json") })],
    ["Grep", (h: string) => ({ pattern: "access_token", path: path.join(h, ".agentmd") })],
  ])(
    "%s of ~/.agentmd/ is denied by the runner's own rules, whatever the list allows",
    async (tool, input) => {
      writeFiles(dir, { "agent.md": "---\nallowed-tools: Read, Grep\n---\nMain.\n" });
      const r = await runCli(["tools", "--try", tool, JSON.stringify(input(home))], {
        cwd: dir,
        env: { HOME: home },
      });
      expect(r.code).toBe(3);
      expect(r.stdout).toContain("is denied by 'Read(~/.agentmd/**)' in the runner's own rules");
    },
  );
});
