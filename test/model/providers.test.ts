import { existsSync } from "node:fs";
import path from "node:path";
import { AnthropicBedrock } from "@anthropic-ai/bedrock-sdk";
import { AnthropicFoundry } from "@anthropic-ai/foundry-sdk";
import { AnthropicVertex } from "@anthropic-ai/vertex-sdk";
import { afterEach, describe, expect, it } from "vitest";
import { createAnthropicModel } from "../../src/model/anthropic.js";
import type { ModelRequest, TurnContext } from "../../src/model/model.js";
import { chooseProvider } from "../../src/model/providers/provider-choice.js";
import { canonicalModelId, providerModelId } from "../../src/model/providers/provider-models.js";
import { ConfigError } from "../../src/shared/errors.js";
import { type FakeAnthropic, type ScriptStep, startFakeAnthropic } from "../support/fake-anthropic.js";
import { type FakeProvider, type ProviderKind, startFakeProvider } from "../support/fake-provider.js";
import { tempDir } from "../support/fixtures.js";

let upstream: FakeAnthropic | undefined;
let front: FakeProvider | undefined;
afterEach(async () => {
  await front?.close();
  await upstream?.close();
  front = undefined;
  upstream = undefined;
});

const AWS = {
  AWS_ACCESS_KEY_ID: "AKIDEXAMPLE",
  AWS_SECRET_ACCESS_KEY: "secret",
  AWS_EC2_METADATA_DISABLED: "true",
};

async function start(
  kind: ProviderKind,
  steps: Parameters<typeof startFakeAnthropic>[0],
  refuse?: Parameters<typeof startFakeProvider>[2],
) {
  upstream = await startFakeAnthropic(steps);
  front = await startFakeProvider(kind, upstream, refuse);
  return front;
}

const hello: ScriptStep = { kind: "message", content: [{ type: "text", text: "hello" }] };

function context(retries: string[] = [], notices: string[] = []): TurnContext {
  return {
    signal: new AbortController().signal,
    onText: () => {},
    onRetry: (_n, reason) => retries.push(reason),
    onNotice: (m) => notices.push(m),
  };
}

const ask = (model = "claude-sonnet-5-5"): ModelRequest => ({
  model,
  max_tokens: 64,
  messages: [{ role: "user", content: "hi" }],
});

describe("each fake speaks its provider's wire format, as the provider's own SDK reads it", () => {
  it("Bedrock: SigV4-signed, the model in the path, the answer as AWS's event stream", async () => {
    const f = await start("bedrock", [hello]);
    const client = new AnthropicBedrock({
      awsRegion: "us-east-1",
      baseURL: f.url,
      awsAccessKey: "AKID",
      awsSecretKey: "s",
      maxRetries: 0,
    });
    const msg = await client.messages
      .stream({
        model: "anthropic.claude-x-v1:0",
        max_tokens: 8,
        messages: [{ role: "user", content: "hi" }],
      })
      .finalMessage();
    expect(msg.content).toEqual([expect.objectContaining({ type: "text", text: "hello" })]);
    expect(f.requests[0]).toMatchObject({
      path: "/model/anthropic.claude-x-v1%3A0/invoke-with-response-stream".replace("%3A", ":"),
      model: "anthropic.claude-x-v1:0",
    });
    expect(typeof f.requests[0]?.body.anthropic_version).toBe("string");
    expect(f.requests[0]?.body.model).toBeUndefined();
    expect(String(f.requests[0]?.headers.authorization)).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKID\/\d{8}\/us-east-1\/bedrock\/aws4_request/,
    );
  });

  it("Vertex: the project, region and model in the path, the answer as server-sent events", async () => {
    const f = await start("vertex", [hello]);
    const authClient = {
      projectId: "p1",
      getRequestHeaders: async () => new Headers({ authorization: "Bearer ya29.x" }),
    };
    const client = new AnthropicVertex({
      region: "us-east5",
      projectId: "p1",
      baseURL: f.url,
      authClient: authClient as never,
      maxRetries: 0,
    });
    const msg = await client.messages
      .stream({ model: "claude-y", max_tokens: 8, messages: [{ role: "user", content: "hi" }] })
      .finalMessage();
    expect(msg.content[0]).toMatchObject({ text: "hello" });
    expect(f.requests[0]).toMatchObject({
      path: "/v1/projects/p1/locations/us-east5/publishers/anthropic/models/claude-y:streamRawPredict",
      model: "claude-y",
    });
    expect(typeof f.requests[0]?.body.anthropic_version).toBe("string");
  });

  it("Foundry: the Messages API under /anthropic/ with the resource's key", async () => {
    const f = await start("foundry", [hello]);
    const client = new AnthropicFoundry({ baseURL: f.url, apiKey: "fk", maxRetries: 0 });
    const msg = await client.messages
      .stream({ model: "claude-z", max_tokens: 8, messages: [{ role: "user", content: "hi" }] })
      .finalMessage();
    expect(msg.content[0]).toMatchObject({ text: "hello" });
    expect(f.requests[0]).toMatchObject({ path: "/anthropic/v1/messages", model: "claude-z" });
    expect(f.requests[0]?.headers["x-api-key"]).toBe("fk");
  });
});

describe("the model seam on each provider", () => {
  it("Bedrock: chosen by CLAUDE_CODE_USE_BEDROCK, the alias mapped to an inference profile, effort's beta in the body", async () => {
    const f = await start("bedrock", [hello]);
    const env = {
      ...AWS,
      CLAUDE_CODE_USE_BEDROCK: "1",
      AWS_REGION: "eu-west-1",
      ANTHROPIC_BEDROCK_BASE_URL: f.url,
      ANTHROPIC_API_KEY: "must-not-be-sent",
    };
    const model = createAnthropicModel({ env, maxRetries: 0 });
    const turn = await model.turn({ ...ask(), output_config: { effort: "low" } } as ModelRequest, context());
    expect(turn).toMatchObject({ kind: "message" });
    expect(f.requests[0]?.model).toBe("eu.anthropic.claude-sonnet-5-5-v1:0");
    expect(f.requests[0]?.body.anthropic_beta).toEqual(["effort-2025-11-24"]);
    expect(JSON.stringify(f.requests[0]?.headers)).not.toContain("must-not-be-sent");
  });

  it("ANTHROPIC_DEFAULT_SONNET_MODEL names the id an alias is sent as, on every provider", async () => {
    const f = await start("bedrock", [hello]);
    const env = {
      ...AWS,
      CLAUDE_CODE_USE_BEDROCK: "1",
      AWS_REGION: "us-west-2",
      ANTHROPIC_BEDROCK_BASE_URL: f.url,
      ANTHROPIC_DEFAULT_SONNET_MODEL: "arn:aws:bedrock:us-west-2:123:application-inference-profile/abc",
    };
    await createAnthropicModel({ env, maxRetries: 0 }).turn(ask(), context());
    expect(f.requests[0]?.model).toBe("arn:aws:bedrock:us-west-2:123:application-inference-profile/abc");
  });

  it("Bedrock throttling is retried like a 429; an unknown model is one line naming the model, the region and what to set", async () => {
    let n = 0;
    const f = await start("bedrock", [hello], {
      refuse: (r) =>
        r.model.includes("nosuch")
          ? { status: 400, type: "ValidationException", message: "The provided model identifier is invalid." }
          : n++ === 0
            ? {
                status: 429,
                type: "ThrottlingException",
                message: "Too many requests, please wait before trying again.",
              }
            : undefined,
    });
    const env = {
      ...AWS,
      CLAUDE_CODE_USE_BEDROCK: "1",
      AWS_REGION: "us-east-1",
      ANTHROPIC_BEDROCK_BASE_URL: f.url,
    };
    const model = createAnthropicModel({ env, maxRetries: 2, backoff: () => 1 });
    const retries: string[] = [];
    expect(await model.turn(ask(), context(retries))).toMatchObject({ kind: "message" });
    expect(retries).toEqual(["HTTP 429"]);
    const bad = await model.turn(ask("claude-nosuch-1"), context());
    expect(bad).toMatchObject({ kind: "error" });
    const message = bad.kind === "error" ? bad.message : "";
    expect(message).toMatch(/^Amazon Bedrock \(us-east-1\) at http:\/\/127\.0\.0\.1:\d+ answered HTTP 400/);
    expect(message).toContain("has no model 'us.anthropic.claude-nosuch-1-v1:0' in us-east-1");
    expect(message).toContain("ANTHROPIC_DEFAULT_SONNET_MODEL");
  });

  it("Bedrock without AWS credentials: one line naming the provider and what to set, no retry, never the Anthropic API", async () => {
    const f = await start("bedrock", [hello]);
    const env = {
      CLAUDE_CODE_USE_BEDROCK: "1",
      AWS_REGION: "us-east-1",
      ANTHROPIC_BEDROCK_BASE_URL: f.url,
      AWS_EC2_METADATA_DISABLED: "true",
      AWS_CONFIG_FILE: "/nonexistent",
      AWS_SHARED_CREDENTIALS_FILE: "/nonexistent",
      HOME: "/nonexistent",
      ANTHROPIC_API_KEY: "k",
    };
    const saved = { ...process.env };
    for (const k of Object.keys(process.env)) if (k.startsWith("AWS_")) delete process.env[k];
    Object.assign(process.env, {
      AWS_EC2_METADATA_DISABLED: "true",
      AWS_CONFIG_FILE: "/nonexistent",
      AWS_SHARED_CREDENTIALS_FILE: "/nonexistent",
    });
    try {
      const retries: string[] = [];
      const turn = await createAnthropicModel({ env, maxRetries: 2, backoff: () => 1 }).turn(
        ask(),
        context(retries),
      );
      expect(turn).toMatchObject({ kind: "error", code: "authentication_error" });
      expect(turn.kind === "error" && turn.message).toMatch(
        /^Amazon Bedrock has no credentials to use .*AWS_PROFILE/,
      );
      expect(retries).toEqual([]);
      expect(f.requests).toHaveLength(0);
      expect(upstream?.requests).toHaveLength(0);
    } finally {
      for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
      Object.assign(process.env, saved);
    }
  });

  it("Vertex behind a gateway that signs (CLAUDE_CODE_SKIP_VERTEX_AUTH): the project's path, no Google sign-in", async () => {
    const f = await start("vertex", [hello], { requireAuth: false });
    const env = {
      CLAUDE_CODE_USE_VERTEX: "1",
      CLOUD_ML_REGION: "us-east5",
      ANTHROPIC_VERTEX_PROJECT_ID: "proj",
      ANTHROPIC_VERTEX_BASE_URL: f.url,
      CLAUDE_CODE_SKIP_VERTEX_AUTH: "1",
    };
    expect(await createAnthropicModel({ env, maxRetries: 0 }).turn(ask(), context())).toMatchObject({
      kind: "message",
    });
    expect(f.requests[0]?.path).toBe(
      "/v1/projects/proj/locations/us-east5/publishers/anthropic/models/claude-sonnet-5-5:streamRawPredict",
    );
  });

  it("Vertex's RESOURCE_EXHAUSTED is retried; a missing model names the project's region", async () => {
    let n = 0;
    const f = await start("vertex", [hello], {
      requireAuth: false,
      refuse: (r) =>
        r.model === "claude-gone"
          ? { status: 404, type: "NOT_FOUND", message: "Publisher Model `claude-gone` not found." }
          : n++ === 0
            ? { status: 429, type: "RESOURCE_EXHAUSTED", message: "Quota exceeded" }
            : undefined,
    });
    const env = {
      CLAUDE_CODE_USE_VERTEX: "1",
      CLOUD_ML_REGION: "europe-west1",
      ANTHROPIC_VERTEX_PROJECT_ID: "proj",
      ANTHROPIC_VERTEX_BASE_URL: f.url,
      CLAUDE_CODE_SKIP_VERTEX_AUTH: "true",
    };
    const model = createAnthropicModel({ env, maxRetries: 1, backoff: () => 1 });
    const retries: string[] = [];
    expect(await model.turn(ask(), context(retries))).toMatchObject({ kind: "message" });
    expect(retries).toEqual(["HTTP 429"]);
    const gone = await model.turn(ask("claude-gone"), context());
    expect(gone.kind === "error" && gone.message).toContain(
      "Google Vertex AI has no model 'claude-gone' in europe-west1",
    );
  });

  it("Foundry: the resource's key, never the Anthropic key", async () => {
    const f = await start("foundry", [hello]);
    const env = {
      CLAUDE_CODE_USE_FOUNDRY: "1",
      ANTHROPIC_FOUNDRY_BASE_URL: f.url,
      ANTHROPIC_FOUNDRY_API_KEY: "foundry-key",
      ANTHROPIC_API_KEY: "anthropic-key",
    };
    expect(await createAnthropicModel({ env, maxRetries: 0 }).turn(ask(), context())).toMatchObject({
      kind: "message",
    });
    expect(f.requests[0]?.headers["x-api-key"]).toBe("foundry-key");
  });

  it("awsCredentialExport's keys sign the requests; after credentials are refused, awsAuthRefresh runs and the request goes again", async () => {
    let n = 0;
    const f = await start("bedrock", [hello], {
      refuse: () =>
        n++ === 0
          ? {
              status: 403,
              type: "ExpiredTokenException",
              message: "The security token included in the request is expired",
            }
          : undefined,
    });
    const { dir, cleanup } = tempDir();
    try {
      const exported = JSON.stringify({
        Credentials: { AccessKeyId: "AKIDEXPORTED", SecretAccessKey: "s", SessionToken: "t" },
      });
      const helpers = {
        awsCredentialExport: { command: `echo '${exported}'`, source: "~/.claude/settings.json" },
        awsAuthRefresh: { command: "touch refreshed", source: "~/.claude/settings.json" },
      };
      const env = {
        CLAUDE_CODE_USE_BEDROCK: "1",
        AWS_REGION: "us-east-1",
        ANTHROPIC_BEDROCK_BASE_URL: f.url,
        AWS_EC2_METADATA_DISABLED: "true",
      };
      const turn = await createAnthropicModel({ env, helpers, cwd: dir, maxRetries: 0 }).turn(
        ask(),
        context(),
      );
      expect(turn).toMatchObject({ kind: "message" });
      expect(f.requests.map((r) => String(r.headers.authorization).slice(0, 45))).toEqual([
        expect.stringContaining("Credential=AKIDEXPORTED/"),
        expect.stringContaining("Credential=AKIDEXPORTED/"),
      ]);
      expect(f.requests[0]?.headers["x-amz-security-token"]).toBe("t");
      expect(existsSync(path.join(dir, "refreshed"))).toBe(true);
    } finally {
      cleanup();
    }
  });

  it("a credential command that fails is one line naming it and its file, with no retry", async () => {
    const f = await start("bedrock", [hello]);
    const helpers = {
      awsCredentialExport: { command: "echo nope >&2; exit 3", source: "~/.claude/settings.json" },
    };
    const env = { CLAUDE_CODE_USE_BEDROCK: "1", AWS_REGION: "us-east-1", ANTHROPIC_BEDROCK_BASE_URL: f.url };
    const retries: string[] = [];
    const turn = await createAnthropicModel({ env, helpers, maxRetries: 2, backoff: () => 1 }).turn(
      ask(),
      context(retries),
    );
    expect(turn).toMatchObject({ kind: "error" });
    expect(turn.kind === "error" && turn.message).toBe(
      "Amazon Bedrock: awsCredentialExport 'echo nope >&2; exit 3' (~/.claude/settings.json) exited 3: nope",
    );
    expect(retries).toEqual([]);
    expect(f.requests).toHaveLength(0);
  });

  it("Bedrock offers no web search tool: it is left out, said once", async () => {
    const f = await start("bedrock", [hello, hello]);
    const env = {
      ...AWS,
      CLAUDE_CODE_USE_BEDROCK: "1",
      AWS_REGION: "us-east-1",
      ANTHROPIC_BEDROCK_BASE_URL: f.url,
    };
    const model = createAnthropicModel({ env, maxRetries: 0 });
    const notices: string[] = [];
    const withSearch = {
      ...ask(),
      tools: [{ type: "web_search_20250305", name: "web_search" }],
    } as ModelRequest;
    await model.turn(withSearch, context([], notices));
    await model.turn(withSearch, context([], notices));
    expect(f.requests[0]?.body.tools).toBeUndefined();
    expect(notices).toEqual([expect.stringContaining("no web search tool")]);
  });
});

describe("choosing a provider", () => {
  it.each([
    [{ CLAUDE_CODE_USE_BEDROCK: "1" }, /needs a region: set AWS_REGION/],
    [{ CLAUDE_CODE_USE_VERTEX: "true" }, /needs a region: set CLOUD_ML_REGION/],
    [{ CLAUDE_CODE_USE_FOUNDRY: "1" }, /set ANTHROPIC_FOUNDRY_RESOURCE/],
    [{ CLAUDE_CODE_USE_BEDROCK: "1", CLAUDE_CODE_USE_VERTEX: "1" }, /choose one provider/],
  ])("%j is a ConfigError before any request", (env, message) => {
    expect(() => chooseProvider(env)).toThrow(ConfigError);
    expect(() => chooseProvider(env)).toThrow(message);
  });

  it("Foundry without a key is Foundry with Microsoft Entra ID sign-in, not an error", () => {
    expect(chooseProvider({ CLAUDE_CODE_USE_FOUNDRY: "1", ANTHROPIC_FOUNDRY_RESOURCE: "r" })).toEqual({
      kind: "foundry",
      resource: "r",
      skipAuth: false,
    });
  });

  it("no switch, or a switch set to 0, is the Anthropic API", () => {
    expect(chooseProvider({})).toEqual({ kind: "anthropic" });
    expect(chooseProvider({ CLAUDE_CODE_USE_BEDROCK: "0" })).toEqual({ kind: "anthropic" });
  });

  it("model ids per provider, and back to agentmd's for prices and features", () => {
    const bedrock = { kind: "bedrock", region: "ap-northeast-1", skipAuth: false } as const;
    expect(providerModelId(bedrock, "claude-opus-5-5", {})).toBe("apac.anthropic.claude-opus-5-5-v1:0");
    expect(providerModelId(bedrock, "us.anthropic.claude-x-v1:0", {})).toBe("us.anthropic.claude-x-v1:0");
    expect(
      providerModelId({ kind: "vertex", region: "global", skipAuth: true }, "claude-haiku-5-5", {
        ANTHROPIC_DEFAULT_HAIKU_MODEL: "claude-haiku-5-5@20261001",
      }),
    ).toBe("claude-haiku-5-5@20261001");
    expect(canonicalModelId("us.anthropic.claude-sonnet-4-5-20250929-v1:0")).toBe(
      "claude-sonnet-4-5-20250929",
    );
    expect(canonicalModelId("claude-sonnet-4-5@20250929")).toBe("claude-sonnet-4-5-20250929");
    expect(canonicalModelId("claude-sonnet-5-5")).toBe("claude-sonnet-5-5");
  });
});
