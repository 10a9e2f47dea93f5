import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { findExecutable } from "../../src/sandbox/probe-sandbox.js";
import { runBinAsync, runCli } from "../support/cli.js";
import { type FakeAnthropic, startFakeAnthropic } from "../support/fake-anthropic.js";
import { tempDir } from "../support/fixtures.js";
import { jsonLines, ofType } from "../support/runs.js";
import { runSandboxTests, sandboxSupport } from "../support/sandbox.js";
import { call, promptOf, resultsSent, resultText, text } from "../support/script.js";
import { writeFiles } from "../support/tools.js";
import { until } from "../support/until.js";

/**
 * The sandbox through the CLI as a user runs it, against a scripted model: each attack fails inside
 * the sandbox, and the same command succeeds where the lists allow it (or where no sandbox runs).
 */
let dir: string;
let cleanup: () => void;
let fake: FakeAnthropic | undefined;

beforeEach(() => {
  ({ dir, cleanup } = tempDir());
});
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  cleanup();
});

const env = (extra: Record<string, string> = {}) => ({
  ANTHROPIC_API_KEY: "k",
  ANTHROPIC_BASE_URL: (fake as FakeAnthropic).url,
  HOME: path.join(dir, "home"),
  PATH: process.env.PATH ?? "",
  ...extra,
});
const run = (args: string[], extra?: Record<string, string>) =>
  runCli(["run", "--output", "stream-json", ...args], { cwd: dir, env: env(extra) });
const told = (i: number, k = 0) => resultText(resultsSent(fake as FakeAnthropic, i)[k]);
/** One Bash call per command, then a final answer. */
const bashScript = (...commands: string[]) => [
  ...commands.map((command) => call("Bash", { command })),
  text("done"),
];

/** Processes of this machine whose command line holds `marker` and that have not ended. */
function running(marker: string): number[] {
  return readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .filter((pid) => {
      try {
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        return cmdline.includes(marker) && !/\) [ZX] /.test(stat);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Waits, within a bound, for no process to hold `marker` (a kill is seen a moment later). */
async function noneRunning(marker: string): Promise<number[]> {
  await until(() => running(marker).length === 0, { what: `no process holding ${marker}`, timeoutMs: 5000 });
  return [];
}

/** Whether bubblewrap, found on PATH, starts `true` in the namespaces the sandbox uses: asked directly. */
function bwrapRuns(extra: string[]): boolean {
  const bwrap = findExecutable("bwrap", process.env.PATH ?? "");
  if (!bwrap || process.platform !== "linux") return false;
  const namespaces = ["--unshare-user", "--unshare-pid", "--unshare-net", "--ro-bind", "/", "/"];
  const rest = ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--", "true"];
  return spawnSync(bwrap, [...namespaces, ...extra, ...rest], { stdio: "ignore" }).status === 0;
}

// In CI bubblewrap must be there (.ci/run installs it): its absence is a failure, not a skip.
it("the probe agrees with bubblewrap itself: works here (with or without --disable-userns), or says why not", () => {
  if (process.env.CI) expect(sandboxSupport).toMatchObject({ ok: true });
  const seen = bwrapRuns([]) ? { ok: true, disableUserns: bwrapRuns(["--disable-userns"]) } : { ok: false };
  const said = sandboxSupport.ok
    ? { ok: true, disableUserns: sandboxSupport.disableUserns }
    : { ok: false, says: /bwrap|bubblewrap|namespace/i.test(sandboxSupport.message) };
  expect(said).toEqual(seen.ok ? seen : { ok: false, says: true });
});

describe.runIf(runSandboxTests)("the sandbox, through the CLI", () => {
  it("writes only in the folders Write allows, and in a private /tmp", async () => {
    writeFiles(dir, { "agent.md": "---\nallowed-tools: Bash, Write(out/**)\n---\nMain.\n", "out/.keep": "" });
    const scratch = `agentmd-private-${randomBytes(4).toString("hex")}`;
    const commands = [
      "echo ok > out/inside.txt && cat out/inside.txt",
      "touch outside.txt",
      `echo private > /tmp/${scratch} && cat /tmp/${scratch}`,
      `echo x > /proc/self/root${dir}/via-proc.txt`,
    ];
    fake = await startFakeAnthropic(bashScript(...commands));
    expect((await run(["--sandbox", "go"])).code).toBe(0);
    expect(told(1)).toBe("ok\n[exit code 0]");
    expect(told(2)).toContain("touch: cannot touch 'outside.txt': Read-only file system");
    expect(told(3)).toBe("private\n[exit code 0]");
    expect(told(4)).toContain("Read-only file system");
    expect([existsSync(path.join(dir, "outside.txt")), existsSync(path.join("/tmp", scratch))]).toEqual([
      false,
      false,
    ]);
    expect(existsSync(path.join(dir, "via-proc.txt"))).toBe(false);

    // The same commands without the sandbox: the allow-list guards the command line only.
    await fake.close();
    fake = await startFakeAnthropic(bashScript(commands[1] as string));
    await run(["go"]);
    expect(told(1)).toBe("[exit code 0]");
    expect(existsSync(path.join(dir, "outside.txt"))).toBe(true);
  });

  it("starts a background command inside the sandbox too", async () => {
    writeFiles(dir, {
      "agent.md": "---\nallowed-tools: Bash, BashOutput, Write(out/**)\n---\nMain.\n",
      "out/.keep": "",
    });
    fake = await startFakeAnthropic([
      call("Bash", { command: "touch outside.txt; echo rc=$? > out/rc", run_in_background: true }),
      // The background command's end cannot be awaited from here: a bounded wait inside the sandbox.
      call("Bash", {
        command: "for i in $(seq 100); do [ -s out/rc ] && break; sleep 0.05; done; cat out/rc",
      }),
      call("BashOutput", { bash_id: "bash_1" }),
      text("done"),
    ]);
    expect((await run(["--sandbox", "go"])).code).toBe(0);
    expect(told(1)).toMatch(/^Started in the background as bash_1\./);
    expect(told(2)).toBe("rc=1\n[exit code 0]");
    expect(told(3)).toContain("touch: cannot touch 'outside.txt': Read-only file system");
    expect(existsSync(path.join(dir, "outside.txt"))).toBe(false);
  });

  it("hides what Read denies name: files, folders, and what a glob matches", async () => {
    writeFiles(dir, {
      "agent.md":
        "---\nallowed-tools: Bash, Read\ndisallowed-tools: Read(.env), Read(secrets/**), Read(**/*.pem)\nsandbox: true\n---\nMain.\n",
      ".env": "API_TOKEN=hunter2\n",
      "secrets/key": "s3cret\n",
      "certs/site.pem": "PRIVATE KEY\n",
      "notes.txt": "plain notes\n",
    });
    fake = await startFakeAnthropic(
      bashScript("cat .env", "cat secrets/key; ls -A secrets | wc -l", "cat certs/site.pem", "cat notes.txt"),
    );
    await run(["go"]);
    expect(told(1)).toContain("cat: .env: Permission denied");
    expect(told(2)).toBe("cat: secrets/key: No such file or directory\n0\n[exit code 0]");
    expect(told(3)).toContain("cat: certs/site.pem: Permission denied");
    expect(told(4)).toBe("plain notes\n[exit code 0]");
    for (const i of [1, 2, 3]) expect(told(i)).not.toMatch(/hunter2|s3cret|PRIVATE KEY/);

    await fake.close();
    fake = await startFakeAnthropic(bashScript("cat .env"));
    writeFiles(dir, {
      "agent.md": "---\nallowed-tools: Bash, Read\ndisallowed-tools: Read(.env)\n---\nMain.\n",
    });
    await run(["go"]);
    expect(told(1)).toBe("API_TOKEN=hunter2\n[exit code 0]");
  });

  it("escapes through neither a symlink nor /proc", async () => {
    writeFiles(dir, {
      "agent.md": "---\nallowed-tools: Bash, Write(out/**)\ndisallowed-tools: Read(.env)\n---\nMain.\n",
      ".env": "API_TOKEN=hunter2\n",
      "out/.keep": "",
      "outside/.keep": "",
    });
    const commands = [
      `ln -s ${dir}/outside out/link && echo x > out/link/planted.txt`,
      `ln -s ${dir}/.env out/env && cat out/env`,
      "tr '\\0' '\\n' < /proc/$PPID/environ | grep -c sk-very-secret || true",
      "grep -l sk-very-secret /proc/[0-9]*/environ 2>/dev/null | wc -l",
    ];
    fake = await startFakeAnthropic(bashScript(...commands));
    // A separate process that holds the key in its own environment, as `node bin/agentmd.js` does.
    const r = await runBinAsync(["run", "--sandbox", "go"], {
      cwd: dir,
      env: env({ ANTHROPIC_API_KEY: "sk-very-secret" }),
    });
    expect([r.code, r.stderr]).toEqual([0, ""]);
    expect(told(1)).toContain("Read-only file system");
    expect(existsSync(path.join(dir, "outside", "planted.txt"))).toBe(false);
    expect(told(2)).toContain("Permission denied");
    expect(told(2)).not.toContain("hunter2");
    expect(told(3)).toBe("0\n[exit code 0]");
    expect(told(4)).toBe("0\n[exit code 0]");

    // Unsandboxed, the same commands reach the folder outside and the runner's environment.
    await fake.close();
    fake = await startFakeAnthropic(bashScript(`echo x > out/link/planted.txt`, commands[2] as string));
    await runBinAsync(["run", "go"], { cwd: dir, env: env({ ANTHROPIC_API_KEY: "sk-very-secret" }) });
    expect(existsSync(path.join(dir, "outside", "planted.txt"))).toBe(true);
    expect(told(2)).toBe("1\n[exit code 0]");
  });

  it("ends every process a command leaves behind, with the command", async () => {
    writeFiles(dir, { "agent.md": "---\nallowed-tools: Bash\n---\nMain.\n" });
    const marker = `300.${Date.now() % 100000}${randomBytes(2).readUInt16BE()}`;
    // The command waits until the setsid'd process has left its group (it writes `ready` after
    // setsid), so the group's end cannot catch it on the way out.
    const ready = `/tmp/agentmd-ready-${marker}`;
    const background = `nohup sleep ${marker} >/dev/null 2>&1 & (setsid sh -c 'echo $$ > ${ready}; exec sleep ${marker}' >/dev/null 2>&1 &); for i in $(seq 500); do [ -s ${ready} ] && break; sleep 0.01; done; echo started`;
    fake = await startFakeAnthropic(bashScript(background));
    await run(["--sandbox", "go"]);
    expect(told(1)).toBe("started\n[exit code 0]");
    expect(await noneRunning(marker)).toEqual([]);

    await fake.close();
    fake = await startFakeAnthropic(bashScript(background));
    await run(["go"]);
    // Without the sandbox, what stays in the command's process group ends with it; what left the
    // group (setsid) survives: the sandbox is what ends that one too. A process sent SIGKILL may
    // still be listed until the kernel has ended it (it was, once, under load): waited for, bounded.
    await until(() => running(marker).length <= 1, {
      what: `one process holding ${marker}`,
      timeoutMs: 5000,
    }).catch(() => undefined);
    const left = running(marker);
    for (const pid of left) process.kill(pid, "SIGKILL");
    rmSync(ready, { force: true });
    expect(left.length).toBe(1);
  });

  it("kills the whole sandbox when a command times out", async () => {
    writeFiles(dir, { "agent.md": "---\nallowed-tools: Bash\nsandbox: true\n---\nMain.\n" });
    const marker = `301.${Date.now() % 100000}${randomBytes(2).readUInt16BE()}`;
    fake = await startFakeAnthropic([
      call("Bash", { command: `sleep ${marker} & sleep ${marker}`, timeout: 500 }),
      text("done"),
    ]);
    await run(["go"]);
    expect(told(1)).toContain("[killed after 500 ms: timed out]");
    expect(await noneRunning(marker)).toEqual([]);
  });

  describe("the network", () => {
    let server: http.Server;
    let port: number;
    beforeEach(async () => {
      server = http.createServer((_req, res) => res.end("scenario-ok"));
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      port = (server.address() as AddressInfo).port;
    });
    afterEach(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });

    /** A client that uses the proxy the environment names, as curl and npm do: plain, or a CONNECT tunnel. */
    const CLIENT = `
const http = require("http");
const [mode, target] = process.argv.slice(2);
const proxy = process.env.http_proxy && new URL(process.env.http_proxy);
if (!proxy) { console.log("no proxy"); process.exit(3); }
const fail = (e) => { console.log("error " + e.code); process.exit(4); };
if (mode === "get") {
  http.get({ host: proxy.hostname, port: proxy.port, path: target }, (r) => {
    let b = ""; r.on("data", (d) => (b += d)); r.on("end", () => console.log(r.statusCode + " " + b.trim()));
  }).on("error", fail);
} else {
  http.request({ host: proxy.hostname, port: proxy.port, method: "CONNECT", path: target }).on("connect", (r, s) => {
    if (r.statusCode !== 200) { console.log("CONNECT " + r.statusCode); process.exit(5); }
    s.write("GET / HTTP/1.1\\r\\nHost: x\\r\\nConnection: close\\r\\n\\r\\n");
    let b = ""; s.on("data", (d) => (b += d)); s.on("end", () => console.log("tunnel " + b.split("\\r\\n\\r\\n")[1]));
  }).on("error", fail).end();
}
`;
    // A read redirection from /dev/tcp opens a connection as `exec 3<>` would, and the parser reads it.
    const direct = () => `: < /dev/tcp/127.0.0.1/${port} && echo connected`;

    it("reaches nothing without WebFetch, not even the machine's own loopback", async () => {
      writeFiles(dir, {
        "agent.md": "---\nallowed-tools: Bash\nsandbox: true\n---\nMain.\n",
        "client.cjs": CLIENT,
      });
      fake = await startFakeAnthropic(bashScript(direct(), `node client.cjs get http://127.0.0.1:${port}/`));
      await run(["go"]);
      expect(told(1)).not.toContain("connected");
      expect(told(1)).toMatch(/Network is unreachable|Connection refused/);
      expect(told(2)).toBe("no proxy\n[exit code 3]");

      await fake.close();
      writeFiles(dir, { "agent.md": "---\nallowed-tools: Bash\n---\nMain.\n" });
      fake = await startFakeAnthropic(bashScript(direct()));
      await run(["go"]);
      expect(told(1)).toBe("connected\n[exit code 0]");
    });

    it("reaches the hosts WebFetch allows through the runner's proxy, and no other", async () => {
      writeFiles(dir, {
        "agent.md": "---\nallowed-tools: Bash, WebFetch(domain:127.0.0.1)\nsandbox: true\n---\nMain.\n",
        "client.cjs": CLIENT,
      });
      fake = await startFakeAnthropic(
        bashScript(
          `node client.cjs get http://127.0.0.1:${port}/`,
          `node client.cjs connect 127.0.0.1:${port}`,
          direct(),
        ),
      );
      await run(["go"]);
      expect(told(1)).toBe("200 scenario-ok\n[exit code 0]");
      expect(told(2)).toBe("tunnel scenario-ok\n[exit code 0]");
      expect(told(3)).not.toContain("connected");

      await fake.close();
      writeFiles(dir, {
        "agent.md": "---\nallowed-tools: Bash, WebFetch(domain:example.com)\nsandbox: true\n---\nMain.\n",
      });
      fake = await startFakeAnthropic(
        bashScript(
          `node client.cjs get http://127.0.0.1:${port}/`,
          `node client.cjs connect 127.0.0.1:${port}`,
        ),
      );
      await run(["go"]);
      expect(told(1)).toContain("403 agentmd sandbox: 127.0.0.1 is not allowed");
      expect(told(2)).toBe("CONNECT 403\n[exit code 5]");
    });
  });

  it("runs a command's !cmd inside the sandbox", async () => {
    writeFiles(dir, {
      "agent.md": "---\nallowed-tools: Bash, Read\ndisallowed-tools: Read(.env)\nsandbox: true\n---\nMain.\n",
      ".env": "API_TOKEN=hunter2\n",
      "commands/leak.md": "---\ndescription: Leaks.\n---\nThe token: !`cat .env`\n",
    });
    fake = await startFakeAnthropic([text("never asked")]);
    const r = await run(["/leak"]);
    expect(r.code).toBe(1);
    expect(fake.requests).toHaveLength(0);
    const error = ofType(jsonLines(r.stdout), "error")[0];
    expect(error?.message).toContain("/leak: the command !`cat .env` failed: cat: .env: Permission denied");

    await fake.close();
    writeFiles(dir, {
      "agent.md": "---\nallowed-tools: Bash, Read\ndisallowed-tools: Read(.env)\n---\nMain.\n",
    });
    fake = await startFakeAnthropic([text("thanks")]);
    await run(["/leak"]);
    expect(promptOf(fake, 0)).toContain("hunter2");
  });

  it("is inherited: a subagent that says sandbox: false still runs sandboxed", async () => {
    writeFiles(dir, {
      "agent.md": "---\nallowed-tools: Bash, Task(helper)\nsandbox: true\n---\nMain.\n",
      "agents/helper.md": "---\nname: helper\ndescription: Helps.\ntools: Bash\nsandbox: false\n---\nHelp.\n",
    });
    fake = await startFakeAnthropic([
      call("Task", { description: "h", prompt: "touch", subagent_type: "helper" }),
      call("Bash", { command: "touch helper-was-here" }),
      text("could not"),
      text("done"),
    ]);
    await run(["go"]);
    expect(told(2)).toContain("Read-only file system");
    expect(existsSync(path.join(dir, "helper-was-here"))).toBe(false);
    const check = await runCli(["check"], {
      cwd: dir,
      env: { HOME: "/nowhere", PATH: process.env.PATH ?? "" },
    });
    expect(check.stdout).toContain(
      "agents/helper.md:5:10: warning: 'sandbox: false' is ignored: below agent.md the sandbox can only be turned on (this runs sandboxed whenever its caller does) [sandbox-cannot-turn-off]",
    );
  });

  it("is turned on by a subagent, or a skill, for what runs below it", async () => {
    writeFiles(dir, {
      "agent.md": "---\nallowed-tools: Bash, Task(careful), Skill(careful-skill)\n---\nMain.\n",
      "agents/careful.md":
        "---\nname: careful\ndescription: Careful.\ntools: Bash\nsandbox: true\n---\nCareful.\n",
      "skills/careful-skill/SKILL.md":
        "---\nname: careful-skill\ndescription: Careful.\nsandbox: true\n---\nBe careful.\n",
    });
    fake = await startFakeAnthropic([
      call("Bash", { command: "touch main-before" }),
      call("Task", { description: "c", prompt: "touch", subagent_type: "careful" }),
      call("Bash", { command: "touch by-subagent" }),
      text("could not"),
      call("Skill", { skill: "careful-skill" }),
      call("Bash", { command: "touch main-after-skill" }),
      text("done"),
    ]);
    await run(["go"]);
    expect(told(1)).toBe("[exit code 0]");
    expect(told(3)).toContain("Read-only file system");
    expect(told(6)).toContain("Read-only file system");
    expect(
      ["main-before", "by-subagent", "main-after-skill"].map((f) => existsSync(path.join(dir, f))),
    ).toEqual([true, false, false]);
  });

  it("runs no command when the lists cannot be honoured, and says why", async () => {
    writeFiles(dir, {
      "agent.md":
        "---\nallowed-tools: Bash\ndisallowed-tools: Read(${SKILL_DIR}/notes)\nsandbox: true\n---\nMain.\n",
    });
    fake = await startFakeAnthropic(bashScript("touch ran"));
    await run(["go"]);
    expect(told(1)).toBe(
      "Cannot run bash: the sandbox cannot be set up: the deny rule 'Read(${SKILL_DIR}/notes)' cannot be interpreted, so what it keeps from being read cannot be hidden from commands.",
    );
    expect(existsSync(path.join(dir, "ran"))).toBe(false);
  });

  it("agentmd tools names the hop that turned the sandbox on", async () => {
    writeFiles(dir, {
      "agent.md": "---\nallowed-tools: Bash, Task(careful)\n---\nMain.\n",
      "agents/careful.md":
        "---\nname: careful\ndescription: Careful.\ntools: Bash\nsandbox: true\n---\nCareful.\n",
    });
    const r = await runCli(["tools", "--chain", "main,agent:careful"], {
      cwd: dir,
      env: { HOME: "/nowhere", PATH: process.env.PATH ?? "" },
    });
    expect(r.stdout).toContain(
      "sandbox: on (agents/careful.md): Bash commands and !cmd run inside bubblewrap\n",
    );
    expect(r.stdout).toContain("  may write: only a private /tmp\n");
    expect(r.stdout).toContain("  network: none\n");
  });

  it("agentmd tools and check say what a sandboxed run may write, what is hidden and what it may reach", async () => {
    writeFiles(dir, {
      "agent.md":
        "---\nallowed-tools: Bash, Write(out/**), WebFetch(domain:example.com)\ndisallowed-tools: Read(.env)\nsandbox:\n  allowedDomains: [registry.npmjs.org]\n---\nMain.\n",
      ".env": "x",
      "out/.keep": "",
    });
    const cli = { cwd: dir, env: { HOME: "/nowhere", PATH: process.env.PATH ?? "" } };
    const expected = [
      "sandbox: on (agent.md): Bash commands and !cmd run inside bubblewrap",
      "  may write: out/ and a private /tmp",
      "  hidden: .env",
      "  network: HTTP(S) through a proxy, to: example.com (WebFetch), registry.npmjs.org (sandbox)",
    ];
    const tools = await runCli(["tools"], cli);
    expect(tools.stdout.trimEnd().split("\n").slice(-4)).toEqual(expected);
    const check = await runCli(["check"], cli);
    expect(check.stdout.trimEnd().split("\n").slice(-5, -1)).toEqual(expected);
    const json = JSON.parse((await runCli(["tools", "--json"], cli)).stdout);
    expect(json.sandbox).toEqual({
      enabled: true,
      by: "agent.md",
      writable: ["out/"],
      readOnly: [],
      hidden: [".env"],
      network: ["example.com (WebFetch)", "registry.npmjs.org (sandbox)"],
      notes: [],
    });
  });
});

describe("a sandbox that cannot be had", () => {
  it("refuses the run before its first request, saying how to install bubblewrap", async () => {
    writeFiles(dir, { "agent.md": "---\nallowed-tools: Bash\nsandbox: true\n---\nMain.\n" });
    mkdirSync(path.join(dir, "empty-path"));
    fake = await startFakeAnthropic([call("Bash", { command: "touch escaped" }), text("done")]);
    const r = await run(["go"], { PATH: path.join(dir, "empty-path") });
    expect(r.code).toBe(2);
    expect(fake.requests).toHaveLength(0);
    const error = ofType(jsonLines(r.stdout), "error")[0];
    expect(error?.code).toBe("sandbox_unavailable");
    expect(error?.message).toContain("the sandbox needs bubblewrap (bwrap), which is not on PATH");
    expect(error?.message).toContain("apt-get install bubblewrap");
    expect(existsSync(path.join(dir, "escaped"))).toBe(false);
  });

  it("says that user namespaces must be enabled when bubblewrap cannot make them", async () => {
    writeFiles(dir, { "agent.md": "---\nallowed-tools: Bash\n---\nMain.\n" });
    const bin = path.join(dir, "broken-bin");
    mkdirSync(bin);
    writeFileSync(
      path.join(bin, "bwrap"),
      "#!/bin/sh\necho 'bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces.' >&2\nexit 1\n",
    );
    chmodSync(path.join(bin, "bwrap"), 0o755);
    fake = await startFakeAnthropic([text("never asked")]);
    const r = await run(["--sandbox", "go"], { PATH: bin });
    expect(r.code).toBe(2);
    expect(fake.requests).toHaveLength(0);
    const error = ofType(jsonLines(r.stdout), "error")[0];
    expect(error?.message).toContain("No permissions to creating new namespace");
    expect(error?.message).toContain("bubblewrap needs user namespaces: enable them");
  });

  it("agentmd tools says a sandboxed run would be refused here", async () => {
    writeFiles(dir, { "agent.md": "---\nallowed-tools: Bash\n---\nMain.\n" });
    mkdirSync(path.join(dir, "empty-path"));
    const r = await runCli(["tools", "--sandbox"], {
      cwd: dir,
      env: { HOME: "/nowhere", PATH: path.join(dir, "empty-path") },
    });
    expect(r.stdout).toContain("sandbox: on (--sandbox): Bash commands and !cmd run inside bubblewrap\n");
    expect(r.stdout).toContain(
      "  a run would be refused here: the sandbox needs bubblewrap (bwrap), which is not on PATH",
    );
    const off = await runCli(["tools"], { cwd: dir, env: { HOME: "/nowhere" } });
    expect(off.stdout).toContain(
      "sandbox: off (turn it on with 'sandbox: true' in agent.md, or --sandbox)\n",
    );
  });
});
