import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { createRunner } from "../../src/invocation/runner.js";
import { signInFile } from "../../src/mcp/oauth-store.js";
import { type CliRun, runBinAsync, runCli } from "../support/cli.js";
import { type FakeAnthropic, startFakeAnthropic } from "../support/fake-anthropic.js";
import { tempDir } from "../support/fixtures.js";
import { mcpJson } from "../support/mcp.js";
import { type HttpMcpServer, startHttpMcpServer } from "../support/mcp-http.js";
import { followSignIn, type OAuthMcpServer, startOAuthMcpServer } from "../support/mcp-oauth.js";
import { drain } from "../support/runs.js";
import { call, resultsSent, resultText, text } from "../support/script.js";
import { writeFiles } from "../support/tools.js";
import { trustProject } from "../support/trust.js";
import { until } from "../support/until.js";

/**
 * OAuth for HTTP MCP servers, as a user meets it: a real MCP server behind its own authorization
 * server (the SDK's server classes) on loopback; `mcp login` through the built CLI, driven by a
 * test that does what the browser does; then runs that use (and refresh) the sign-in. Where the
 * sign-in is only a test's set-up, and for the steps of a class another test crosses the built CLI
 * with (a logout, a run told a sign-in is needed), the CLI's main() runs in this process.
 */
let dir: string;
let home: string;
let cleanup: () => void;
let server: OAuthMcpServer;
let fake: FakeAnthropic | undefined;
let decoy: HttpMcpServer | undefined;

beforeEach(async () => {
  ({ dir, cleanup } = tempDir());
  home = path.join(dir, "home");
  server = await startOAuthMcpServer();
  writeFiles(dir, {
    ".mcp.json": mcpJson({ secure: { type: "http", url: server.url } }),
    "agent.md": "---\nallowed-tools: Read, mcp__secure__*\n---\nMain.\n",
  });
  trustProject(dir);
});
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  await decoy?.close();
  decoy = undefined;
  await server.close();
  cleanup();
});

const env = (extra: Record<string, string> = {}) => ({
  HOME: home,
  ANTHROPIC_API_KEY: "k",
  ...(fake && { ANTHROPIC_BASE_URL: fake.url }),
  ...extra,
});

/** `agentmd mcp login NAME` through the built CLI, the printed address followed as a browser would. */
async function login(
  args: string[] = ["--no-browser"],
  extra: Record<string, string> = {},
): Promise<CliRun & { page: { status: number; text: string } | undefined }> {
  let page: Promise<{ status: number; text: string }> | undefined;
  const r = await runBinAsync(["mcp", "login", "secure", ...args], {
    cwd: dir,
    env: env(extra),
    onStart(child) {
      let out = "";
      child.stdout?.on("data", (d: string) => {
        out += d;
        if (!page && /^ {2}http\S+$/m.test(out)) page = followSignIn(out);
      });
    },
  });
  return { ...r, page: await page };
}

/**
 * The same sign-in through the CLI's main() in this process: the set-up step of the tests that
 * check what comes after it (a refresh, a logout, the URL binding); the tests of the login itself
 * cross the built CLI with `login`.
 */
async function signIn(): Promise<CliRun> {
  let page: Promise<unknown> | undefined;
  let stdout = "";
  let stderr = "";
  const code = await main(["mcp", "login", "secure", "--no-browser"], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "", ...env() },
    stdout: {
      write: (d: string) => {
        stdout += d;
        if (!page && /^ {2}http\S+$/m.test(stdout)) page = followSignIn(stdout);
        return true;
      },
      isTTY: false,
    },
    stderr: { write: (d: string) => (stderr += d), isTTY: false },
  });
  await page;
  return { code, stdout, stderr };
}

/** A command through the CLI's main() in this process, for the steps another test crosses the built CLI with. */
const inProcess = (argv: string[]) =>
  runCli(argv, { cwd: dir, env: { PATH: process.env.PATH ?? "", ...env() } });

/** `-p` asking for issue #7 through the server's tool. */
async function runGetIssue(): Promise<CliRun> {
  fake = await startFakeAnthropic([call("mcp__secure__get_issue", { number: 7 }), text("done")]);
  return runBinAsync(["-p", "look at #7"], { cwd: dir, env: env() });
}

const bearers = () => server.seen.filter((s) => s.authorization?.startsWith("Bearer "));

describe("agentmd mcp login, then a run", { timeout: 90_000 }, () => {
  it("signs in with discovery, registration and PKCE, keeps the sign-in 0600, and -p uses the tool with it", async () => {
    const emptyPath = path.join(dir, "no-programs");
    mkdirSync(emptyPath);
    // No browser opener on the PATH: the login prints the address and goes on.
    const r = await login([], { PATH: emptyPath });
    expect(r.page).toEqual({
      status: 200,
      text: "agentmd: signed in; you can close this page and go back to the terminal\n",
    });
    expect([r.code, r.stderr]).toEqual([0, ""]);
    expect(r.stdout).toContain("To sign in to MCP server 'secure', open this address in a browser:");
    expect(r.stdout).toContain(
      `Signed in to MCP server 'secure': 4 tools. The sign-in is kept in ${signInFile(home)}, for ${server.url} only.`,
    );
    expect(server.registered).toHaveLength(1);
    expect(server.registered[0]?.redirect_uris[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(server.grants).toEqual(["authorization_code"]);
    const token = server.accessTokens[0] as string;
    expect(r.stdout).not.toContain(token);
    expect(statSync(signInFile(home)).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(signInFile(home))).mode & 0o777).toBe(0o700);

    const run = await runGetIssue();
    expect([run.code, run.stderr]).toEqual([0, ""]);
    expect(run.stdout).toBe("done\n");
    expect(resultText(resultsSent(fake as FakeAnthropic, 1)[0])).toBe("issue #7: the build is red");
    expect(bearers().at(-1)?.authorization).toBe(`Bearer ${token}`);
    // The token is no part of what the run wrote or said.
    const sessions = path.join(dir, ".agentmd", "sessions");
    for (const f of readdirSync(sessions))
      expect(readFileSync(path.join(sessions, f), "utf8")).not.toContain(token);
    expect(JSON.stringify((fake as FakeAnthropic).requests)).not.toContain(token);
  });

  it("opens the address with xdg-open when the PATH has it", async () => {
    const bin = path.join(dir, "bin");
    const opened = path.join(dir, "opened");
    mkdirSync(bin);
    writeFileSync(path.join(bin, "xdg-open"), `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\n`, { mode: 0o755 });
    let page: Promise<Response> | undefined;
    const r = await runBinAsync(["mcp", "login", "secure"], {
      cwd: dir,
      env: env({ PATH: `${bin}:${process.env.PATH ?? ""}` }),
      onStart: () => {
        page = until(() => (readOpened(opened) ? readOpened(opened) : undefined), { what: "xdg-open" }).then(
          (at) => fetch(at),
        );
      },
    });
    expect((await page)?.status).toBe(200);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(readOpened(opened));
  });

  it("refreshes a token about to expire before the run sends it", async () => {
    server.accessTtl = 30; // inside the minute before expiry at which agentmd refreshes
    expect((await signIn()).code).toBe(0);
    const kept = server.accessTokens.at(-1);
    const before = server.grants.length;
    server.seen.length = 0;
    server.accessTtl = 3600;
    const run = await runGetIssue();
    expect([run.code, run.stdout]).toEqual([0, "done\n"]);
    expect(server.grants.slice(before)).toEqual(["refresh_token"]);
    const second = server.accessTokens.at(-1) as string;
    expect(server.seen.map((s) => s.authorization)).not.toContain(`Bearer ${kept}`);
    expect(bearers().every((s) => s.authorization === `Bearer ${second}`)).toBe(true);
    const file = JSON.parse(readFileSync(signInFile(home), "utf8"));
    expect(file.servers[server.url].tokens.access_token).toBe(second);
    expect(statSync(signInFile(home)).mode & 0o777).toBe(0o600);
  });

  it("refreshes a token the server no longer takes when it answers 401", async () => {
    expect((await signIn()).code).toBe(0);
    server.revokeAccessTokens();
    const run = await runGetIssue();
    expect([run.code, run.stdout, run.stderr]).toEqual([0, "done\n", ""]);
    expect(server.grants).toEqual(["authorization_code", "refresh_token"]);
    expect(bearers().at(-1)?.authorization).toBe(`Bearer ${server.accessTokens[1]}`);
  });

  it("keeps the file 0600 when it was left readable by others", async () => {
    mkdirSync(path.dirname(signInFile(home)), { recursive: true });
    writeFileSync(signInFile(home), '{"version":1,"servers":{}}\n');
    chmodSync(signInFile(home), 0o644);
    expect((await login()).code).toBe(0);
    expect(statSync(signInFile(home)).mode & 0o777).toBe(0o600);
  });
});

describe("a server that wants a sign-in the run does not have", { timeout: 90_000 }, () => {
  const line =
    "MCP server 'secure' needs a sign-in: run 'agentmd mcp login secure'; its tools are not offered in this run";

  it("says so in one line and goes on without it (never signed in)", async () => {
    fake = await startFakeAnthropic([text("went on")]);
    const run = await runBinAsync(["-p", "hi"], { cwd: dir, env: env() });
    expect([run.code, run.stdout]).toEqual([0, "went on\n"]);
    expect(run.stderr).toBe(`agentmd: ${line}\n`);
    expect(fake.requests[0]?.body.tools?.map((t) => ("name" in t ? t.name : ""))).toEqual(["Read"]);
  });

  it("says so when the server refuses the token and its refresh both", async () => {
    expect((await signIn()).code).toBe(0);
    server.revokeAll();
    fake = await startFakeAnthropic([text("went on")]);
    const run = await inProcess(["-p", "hi"]);
    expect([run.code, run.stdout]).toEqual([0, "went on\n"]);
    expect(run.stderr).toBe(`agentmd: ${line}\n`);
  });

  it("after mcp logout, which revoked the tokens at the authorization server first", async () => {
    expect((await signIn()).code).toBe(0);
    const kept = JSON.parse(readFileSync(signInFile(home), "utf8")).servers[server.url];
    const out = await runBinAsync(["mcp", "logout", "secure"], { cwd: dir, env: env() });
    expect([out.code, out.stdout, out.stderr]).toEqual([
      0,
      `Signed out of MCP server 'secure' (${server.url})\n`,
      "",
    ]);
    expect(server.revocations).toEqual([
      { token: kept.tokens.refresh_token, hint: "refresh_token", client: kept.client.client_id },
      { token: kept.tokens.access_token, hint: "access_token", client: kept.client.client_id },
    ]);
    expect(JSON.parse(readFileSync(signInFile(home), "utf8")).servers).toEqual({});
    const again = await inProcess(["mcp", "logout", "secure"]);
    expect(again.stdout).toBe(`MCP server 'secure' (${server.url}) was not signed in: nothing to forget\n`);
    fake = await startFakeAnthropic([text("went on")]);
    const run = await inProcess(["-p", "hi"]);
    expect(run.stderr).toBe(`agentmd: ${line}\n`);
  });
});

describe("mcp logout when the authorization server does not revoke", { timeout: 90_000 }, () => {
  it("says so in one line on stderr, forgets the sign-in all the same, and exits 0", async () => {
    expect((await signIn()).code).toBe(0);
    server.revokeStatus = 503;
    const out = await inProcess(["mcp", "logout", "secure"]);
    expect([out.code, out.stdout]).toEqual([0, `Signed out of MCP server 'secure' (${server.url})\n`]);
    const endpoint = new URL("/revoke", server.url).href;
    expect(out.stderr).toBe(
      `agentmd mcp logout: secure: could not revoke its tokens at ${endpoint} (the refresh token: it answered 503 Service Unavailable; the access token: it answered 503 Service Unavailable); the sign-in is forgotten here all the same\n`,
    );
    expect(JSON.parse(readFileSync(signInFile(home), "utf8")).servers).toEqual({});
  });

  it("forgets the sign-in when the authorization server cannot be reached", async () => {
    expect((await signIn()).code).toBe(0);
    await server.close();
    const out = await inProcess(["mcp", "logout", "secure"]);
    expect([out.code, out.stdout]).toEqual([0, `Signed out of MCP server 'secure' (${server.url})\n`]);
    expect(out.stderr).toMatch(
      /^agentmd mcp logout: secure: could not revoke its tokens at \S+ \(the refresh token: it could not be reached \([^\n]*\)\); the sign-in is forgotten here all the same\n$/,
    );
    expect(JSON.parse(readFileSync(signInFile(home), "utf8")).servers).toEqual({});
  });
});

describe("a sign-in is bound to the server's exact URL", { timeout: 90_000 }, () => {
  /** A project elsewhere that names `secure` at `url`; its run, in process. */
  async function runElsewhere(url: string): Promise<void> {
    const other = path.join(dir, "elsewhere");
    writeFiles(other, {
      ".mcp.json": mcpJson({ secure: { type: "http", url } }),
      "agent.md": "---\nallowed-tools: mcp__secure__*\n---\nMain.\n",
    });
    fake = await startFakeAnthropic([text("ok")]);
    const runner = createRunner({
      projectDir: other,
      env: { HOME: home },
      model: { apiKey: "k", baseURL: fake.url },
    });
    try {
      await drain(runner.run("go"));
    } finally {
      await runner.close();
    }
  }

  it.each<[string, (s: OAuthMcpServer) => string]>([
    ["another path on the same origin", (s) => s.openUrl],
    ["the same path with a query", (s) => `${s.url}?tenant=1`],
    ["the same path with a trailing slash", (s) => `${s.url}/`],
    ["localhost for 127.0.0.1", (s) => s.url.replace("127.0.0.1", "localhost")],
  ])("a project naming %s never sends the token", async (_, urlOf) => {
    expect((await signIn()).code).toBe(0);
    server.seen.length = 0;
    await runElsewhere(urlOf(server));
    expect(server.seen.length).toBeGreaterThan(0);
    expect(bearers()).toEqual([]);
  });

  it("a project naming another server's URL never sends the token to it", async () => {
    expect((await signIn()).code).toBe(0);
    decoy = await startHttpMcpServer("github", "http");
    await runElsewhere(decoy.url);
    expect(decoy.authorizations.length).toBeGreaterThan(0);
    expect(decoy.authorizations.filter((a) => a !== undefined)).toEqual([]);
  });

  it("the exact URL, in another project, does", async () => {
    expect((await signIn()).code).toBe(0);
    server.seen.length = 0;
    await runElsewhere(server.url);
    expect(bearers().map((s) => s.authorization)).toContain(`Bearer ${server.accessTokens[0]}`);
  });
});

function readOpened(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}
