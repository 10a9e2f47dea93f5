import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect } from "vitest";
import { type FakeProvider, type ProviderKind, startFakeProvider } from "../support/fake-provider.js";
import { test } from "../support/fixture.js";
import { call, resultsSent, text } from "../support/script.js";

/**
 * A run on each cloud provider, as its users set it up (Claude Code's variables): the provider's own
 * SDK speaks its wire format to a local fake of it; the lists bind the same. Bedrock's run and its
 * missing credentials cross the built CLI; the other rows run the CLI's main() in this process.
 */
const it = test.extend<{ front: (kind: ProviderKind) => Promise<FakeProvider> }>({
  front: async ({ fake }, use) => {
    const started: FakeProvider[] = [];
    await use(async (kind) => {
      // Vertex here stands behind a gateway that signs (CLAUDE_CODE_SKIP_VERTEX_AUTH): no Google sign-in.
      const f = await startFakeProvider(kind, fake, { requireAuth: kind !== "vertex" });
      started.push(f);
      return f;
    });
    for (const f of started) await f.close();
  },
});

/** No cloud metadata server is ever asked (this machine has none, and must not try). */
const NO_METADATA = { AWS_EC2_METADATA_DISABLED: "true", METADATA_SERVER_DETECTION: "none" };

const providerEnv = (kind: ProviderKind, url: string): Record<string, string> =>
  kind === "bedrock"
    ? {
        CLAUDE_CODE_USE_BEDROCK: "1",
        AWS_REGION: "us-east-1",
        ANTHROPIC_BEDROCK_BASE_URL: url,
        AWS_ACCESS_KEY_ID: "AKIDEXAMPLE",
        AWS_SECRET_ACCESS_KEY: "s3cr3t",
      }
    : kind === "vertex"
      ? {
          CLAUDE_CODE_USE_VERTEX: "1",
          CLOUD_ML_REGION: "us-east5",
          ANTHROPIC_VERTEX_PROJECT_ID: "proj",
          ANTHROPIC_VERTEX_BASE_URL: url,
          CLAUDE_CODE_SKIP_VERTEX_AUTH: "1",
        }
      : { CLAUDE_CODE_USE_FOUNDRY: "1", ANTHROPIC_FOUNDRY_BASE_URL: url, ANTHROPIC_FOUNDRY_API_KEY: "fk" };

const AGENT = "---\nallowed-tools: Read, Task\ndisallowed-tools: Read(secret.txt)\n---\nBe brief.\n";
const HELPER = "---\nname: helper\ndescription: reads files\ntools: Read, Bash\n---\nHelp.\n";

describe.each(["bedrock", "vertex", "foundry"] as const)("on %s", (kind) => {
  it("a run with a tool call, a subagent hop and a denial: the same lists bind, no request reaches the Anthropic API directly", async ({
    project,
    fake,
    front,
    cli,
    main,
  }) => {
    project({ "agent.md": AGENT, "agents/helper.md": HELPER, "notes.txt": "the notes", "secret.txt": "s" });
    const f = await front(kind);
    fake.push(
      call("Read", { file_path: "notes.txt" }),
      call("Task", { subagent_type: "helper", description: "look", prompt: "run ls" }),
      call("Bash", { command: "ls" }),
      text("child done"),
      call("Read", { file_path: "secret.txt" }),
      text("all done"),
    );
    const r = await (kind === "bedrock" ? cli : main)(["-p", "go"], {
      env: { ...NO_METADATA, ...providerEnv(kind, f.url), ANTHROPIC_BASE_URL: "http://127.0.0.1:9" },
    });
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("all done\n");
    expect(r.code).toBe(0);
    expect(f.requests).toHaveLength(6);
    expect(JSON.stringify(resultsSent(fake, 1))).toContain("the notes");
    // The subagent's Bash is outside its caller's list (Read, Task): refused at the hop, on every provider.
    expect(JSON.stringify(resultsSent(fake, 3))).toMatch(/not allowed/);
    expect(JSON.stringify(resultsSent(fake, 5))).toMatch(/denied by 'Read\(secret\.txt\)'/);
    const sent = f.requests.map((q) => q.model);
    expect(new Set(sent)).toEqual(
      new Set([kind === "bedrock" ? "us.anthropic.claude-sonnet-5-5-v1:0" : "claude-sonnet-5-5"]),
    );
  });
});

describe("credentials and settings", () => {
  it("Bedrock with no credentials: one clear line naming the provider and what to set, exit 1, no stack, the Anthropic key never used", async ({
    project,
    fake,
    front,
    cli,
  }) => {
    project({ "agent.md": AGENT });
    const f = await front("bedrock");
    const r = await cli(["-p", "go"], {
      env: {
        ...NO_METADATA,
        CLAUDE_CODE_USE_BEDROCK: "1",
        AWS_REGION: "us-east-1",
        ANTHROPIC_BEDROCK_BASE_URL: f.url,
        AWS_CONFIG_FILE: "/nonexistent",
        AWS_SHARED_CREDENTIALS_FILE: "/nonexistent",
      },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Amazon Bedrock has no credentials to use .*AWS_PROFILE/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(fake.requests).toHaveLength(0);
  });

  it("a region left unset is refused before any request, naming the variable", async ({ project, main }) => {
    project({ "agent.md": AGENT });
    const r = await main(["-p", "go"], { env: { CLAUDE_CODE_USE_VERTEX: "1" } });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("set CLOUD_ML_REGION");
  });

  it("the user's settings env selects the provider, as Claude Code's does", async ({
    project,
    dir,
    fake,
    front,
    main,
  }) => {
    const f = await front("foundry");
    project({
      "agent.md": AGENT,
      "home/.claude/settings.json": JSON.stringify({
        env: {
          CLAUDE_CODE_USE_FOUNDRY: "1",
          ANTHROPIC_FOUNDRY_BASE_URL: f.url,
          ANTHROPIC_FOUNDRY_API_KEY: "fk",
        },
      }),
    });
    fake.push(text("via foundry"));
    const r = await main(["-p", "go"], { cwd: dir });
    expect(r.stdout).toBe("via foundry\n");
    expect(f.requests).toHaveLength(1);
  });

  it("a project's settings can never send the user's credentials to a server of its choosing", async ({
    project,
    fake,
    front,
    main,
  }) => {
    const f = await front("bedrock");
    project({
      "agent.md": AGENT,
      ".claude/settings.json": JSON.stringify({
        env: { ANTHROPIC_BEDROCK_BASE_URL: f.url, AWS_ENDPOINT_URL_BEDROCK_RUNTIME: f.url },
      }),
    });
    fake.push(text("never"));
    const r = await main(["-p", "go"], {
      env: {
        ...NO_METADATA,
        CLAUDE_CODE_USE_BEDROCK: "1",
        AWS_REGION: "us-east-1",
        AWS_ACCESS_KEY_ID: "AKID",
        AWS_SECRET_ACCESS_KEY: "s",
      },
    });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/'env\.ANTHROPIC_BEDROCK_BASE_URL' in \.claude\/settings\.json is refused/);
    expect(r.stderr).toMatch(
      /'env\.AWS_ENDPOINT_URL_BEDROCK_RUNTIME' in \.claude\/settings\.json is refused/,
    );
    expect(f.requests).toHaveLength(0);
  });

  it("a project's apiKeyHelper runs only once the folder is trusted", async ({
    project,
    dir,
    fake,
    main,
    env,
  }) => {
    project({
      "agent.md": AGENT,
      ".claude/settings.json": JSON.stringify({ apiKeyHelper: "touch helper-ran; echo project-key" }),
    });
    fake.push(text("one"), text("two"));
    const { ANTHROPIC_API_KEY: _k, ...noKey } = env;
    const untrusted = await main(["-p", "go"], { env: { ...noKey, ANTHROPIC_API_KEY: "" } });
    expect(untrusted.code).not.toBe(0);
    expect(untrusted.stderr).toContain("no API key");
    expect(fake.requests).toHaveLength(0);
    expect(existsSync(path.join(dir, "helper-ran"))).toBe(false);
    expect((await main(["trust"])).stdout).toContain("apiKeyHelper 'touch helper-ran; echo project-key'");
    expect(await main(["trust", "--yes"])).toMatchObject({ code: 0 });
    const trusted = await main(["-p", "go"], { env: { ...noKey, ANTHROPIC_API_KEY: "" } });
    expect(trusted.stderr).toBe("");
    expect(trusted.stdout).toBe("one\n");
    expect(fake.requests[0]?.headers.authorization).toBe("Bearer project-key");
    expect(existsSync(path.join(dir, "helper-ran"))).toBe(true);
  });

  it("the user's apiKeyHelper gives the key, and is asked again after a 401", async ({
    project,
    dir,
    fake,
    main,
    env,
  }) => {
    project({
      "agent.md": AGENT,
      "home/.claude/settings.json": JSON.stringify({
        apiKeyHelper: `n=$(cat ${dir}/n 2>/dev/null || echo 0); n=$((n+1)); echo $n > ${dir}/n; echo key-$n`,
      }),
    });
    fake.push(
      { kind: "http-error", status: 401, errorType: "authentication_error", message: "invalid x-api-key" },
      text("after renewal"),
    );
    const r = await main(["-p", "go"], {
      env: { ANTHROPIC_BASE_URL: env.ANTHROPIC_BASE_URL ?? "", ANTHROPIC_API_KEY: "" },
    });
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("after renewal\n");
    expect(fake.requests.map((q) => q.headers.authorization)).toEqual(["Bearer key-1", "Bearer key-2"]);
  });

  it("check names the provider a run would use and what chose it; a provider missing its region is an error", async ({
    project,
    main,
  }) => {
    project({ "agent.md": AGENT });
    const ok = await main(["check"], { env: { CLAUDE_CODE_USE_BEDROCK: "1", AWS_REGION: "eu-west-1" } });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain(
      "model provider: Amazon Bedrock (set by CLAUDE_CODE_USE_BEDROCK, AWS_REGION)",
    );
    const bad = await main(["check"], { env: { CLAUDE_CODE_USE_BEDROCK: "1" } });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain(
      "error: Amazon Bedrock (CLAUDE_CODE_USE_BEDROCK=1) needs a region: set AWS_REGION",
    );
  });

  it("a run recorded on Bedrock replays offline, with no provider and no key", async ({
    project,
    fake,
    front,
    main,
  }) => {
    project({ "agent.md": AGENT, "notes.txt": "the notes" });
    const f = await front("bedrock");
    fake.push(call("Read", { file_path: "notes.txt" }), text("recorded on bedrock"));
    const recorded = await main(["-p", "--record", "rec.jsonl", "go"], {
      env: { ...NO_METADATA, ...providerEnv("bedrock", f.url) },
    });
    expect(recorded.stdout).toBe("recorded on bedrock\n");
    const replayed = await main(["-p", "--replay", "rec.jsonl", "go"], {
      env: { ANTHROPIC_API_KEY: "", ANTHROPIC_BASE_URL: "http://127.0.0.1:9" },
    });
    expect(replayed.stderr).toBe("");
    expect(replayed.stdout).toBe("recorded on bedrock\n");
    expect(f.requests).toHaveLength(2);
  });

  it("check names a misspelled provider variable in settings env", async ({ project, main }) => {
    project({
      "agent.md": AGENT,
      ".claude/settings.json": JSON.stringify({ env: { CLAUDE_CODE_USE_BEDROK: "1" } }),
    });
    const r = await main(["check"]);
    expect(r.stdout + r.stderr).toContain(
      "'env.CLAUDE_CODE_USE_BEDROK' is not a variable agentmd reads; did you mean 'CLAUDE_CODE_USE_BEDROCK'?",
    );
  });
});
