import { chmodSync, cpSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { describe, expect } from "vitest";
import { type FakeProvider, type ProviderKind, startFakeProvider } from "../support/fake-provider.js";
import { test } from "../support/fixture.js";
import { REPO_ROOT } from "../support/fixtures.js";
import { text } from "../support/script.js";

/**
 * How a user on each cloud signs in, through the built CLI: Microsoft Foundry without a key (Entra ID
 * through the Azure CLI), Google Vertex AI from a credentials file or from nothing (never asking
 * Google's metadata server where the credentials cannot come from it), and an install that carries
 * no provider client at all. Foundry's first sign-in crosses the built CLI; its renewal and its
 * failures run the CLI's main() in this process.
 */

/** A local HTTP server that records each request and answers with `answer`. */
interface Recorder {
  readonly url: string;
  readonly requests: { path: string; body: string }[];
  close(): Promise<void>;
}

async function recorder(answer: (path: string) => { status: number; body: unknown }): Promise<Recorder> {
  const requests: { path: string; body: string }[] = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => {
      requests.push({ path: req.url ?? "/", body });
      const a = answer(req.url ?? "/");
      res.writeHead(a.status, { "content-type": "application/json", "metadata-flavor": "Google" });
      res.end(JSON.stringify(a.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const it = test.extend<{
  front: (kind: ProviderKind, requireAuth?: boolean) => Promise<FakeProvider>;
  /** A stand-in for Google's metadata server that answers every request with a 500 and records it. */
  metadata: Recorder;
}>({
  front: async ({ fake }, use) => {
    const started: FakeProvider[] = [];
    await use(async (kind, requireAuth = true) => {
      const f = await startFakeProvider(kind, fake, { requireAuth });
      started.push(f);
      return f;
    });
    for (const f of started) await f.close();
  },
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern
  metadata: async ({}, use) => {
    const m = await recorder(() => ({ status: 500, body: { error: "unexpected" } }));
    await use(m);
    await m.close();
  },
});

const AGENT = "---\nallowed-tools: Read\n---\nBe brief.\n";

/** A folder holding only an `az` that runs `script`: the Azure CLI as the test needs it. */
function azOnPath(dir: string, script: string): string {
  const bin = path.join(dir, "azbin");
  mkdirSync(bin, { recursive: true });
  writeFileSync(path.join(bin, "az"), `#!/bin/sh\n${script}\n`);
  chmodSync(path.join(bin, "az"), 0o755);
  return bin;
}

/** An `az account get-access-token` that prints token-N (N counting its runs) and logs its arguments. */
const COUNTING_AZ = (dir: string) =>
  [
    `echo "$*" >> ${dir}/az-args`,
    `n=$(cat ${dir}/az-n 2>/dev/null || echo 0); n=$((n+1)); echo $n > ${dir}/az-n`,
    `echo "{\\"accessToken\\": \\"entra-$n\\", \\"expires_on\\": $(( $(date +%s) + 3600 )), \\"tokenType\\": \\"Bearer\\"}"`,
  ].join("\n");

/** Foundry without a key; `bin` first on PATH (alone when `only`: no Azure CLI anywhere). */
const foundryEnv = (url: string, bin: string, only = false) => ({
  CLAUDE_CODE_USE_FOUNDRY: "1",
  ANTHROPIC_FOUNDRY_BASE_URL: url,
  PATH: only ? bin : `${bin}:${process.env.PATH ?? ""}`,
});

describe("Microsoft Foundry without a key: Microsoft Entra ID", () => {
  it("signs in through the Azure CLI's token, sent as a bearer token and never as a key", async ({
    project,
    dir,
    fake,
    front,
    cli,
  }) => {
    project({ "agent.md": AGENT });
    const f = await front("foundry");
    fake.push(text("signed in"));
    const r = await cli(["-p", "go"], { env: foundryEnv(f.url, azOnPath(dir, COUNTING_AZ(dir))) });
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("signed in\n");
    expect(f.requests[0]?.headers.authorization).toBe("Bearer entra-1");
    expect(f.requests[0]?.headers["x-api-key"]).toBeUndefined();
  });

  it("asks the Azure CLI again after Foundry refuses the token (401)", async ({
    project,
    dir,
    fake,
    main,
  }) => {
    project({ "agent.md": AGENT });
    const f = await startFakeProvider("foundry", fake, {
      refuse: (q) =>
        q.headers.authorization === "Bearer entra-1"
          ? { status: 401, type: "authentication_error", message: "token expired" }
          : undefined,
    });
    try {
      fake.push(text("renewed"));
      const r = await main(["-p", "go"], { env: foundryEnv(f.url, azOnPath(dir, COUNTING_AZ(dir))) });
      expect(f.requests.map((q) => q.headers.authorization)).toEqual(["Bearer entra-1", "Bearer entra-2"]);
      expect(r.stderr).toBe("");
      expect(r.stdout).toBe("renewed\n");
    } finally {
      await f.close();
    }
  });

  it("an Azure CLI that is not signed in: one line naming the provider and what to do, no request", async ({
    project,
    dir,
    front,
    main,
  }) => {
    project({ "agent.md": AGENT });
    const f = await front("foundry");
    const az = azOnPath(dir, `echo "ERROR: Please run 'az login' to setup account." >&2; exit 1`);
    const r = await main(["-p", "go"], { env: foundryEnv(f.url, az) });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /Microsoft Foundry: Microsoft Entra ID sign-in failed \(`az account get-access-token` exited 1: ERROR: Please run 'az login' to setup account\.\): run `az login`/,
    );
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(f.requests).toHaveLength(0);
  });

  it("no key and no way to sign in: one line listing the ways, no stack, no request", async ({
    project,
    dir,
    front,
    main,
  }) => {
    project({ "agent.md": AGENT });
    const f = await front("foundry");
    const empty = path.join(dir, "empty-bin");
    mkdirSync(empty);
    const r = await main(["-p", "go"], { env: foundryEnv(f.url, empty, true) });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^agentmd: Microsoft Foundry: no key, and no way to sign in was found: set ANTHROPIC_FOUNDRY_API_KEY, or sign in to Microsoft Entra ID with the Azure CLI \(`az login`\), or install @azure\/identity/,
    );
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(f.requests).toHaveLength(0);
  });
});

describe("Google Vertex AI's sign-in never asks the metadata server where the credentials cannot come from it", () => {
  it("credentials from a key file: the run signs with them, the metadata server is never asked, nothing on stderr", async ({
    project,
    dir,
    fake,
    front,
    metadata,
    cli,
  }) => {
    // Workload identity federation: a subject token in a file, exchanged at a (local) token service.
    const sts = await recorder(() => ({
      status: 200,
      body: {
        access_token: "google-token",
        issued_token_type: "urn:ietf:params:oauth:token-type:access_token",
        token_type: "Bearer",
        expires_in: 3600,
      },
    }));
    try {
      project({
        "agent.md": AGENT,
        "subject-token": "a-subject-token",
        "adc.json": JSON.stringify({
          type: "external_account",
          audience: "//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/p/providers/x",
          subject_token_type: "urn:ietf:params:oauth:token-type:jwt",
          token_url: `${sts.url}/v1/token`,
          credential_source: { file: path.join(dir, "subject-token") },
        }),
      });
      const f = await front("vertex");
      fake.push(text("via vertex"));
      const r = await cli(["-p", "go"], {
        env: {
          CLAUDE_CODE_USE_VERTEX: "1",
          CLOUD_ML_REGION: "us-east5",
          ANTHROPIC_VERTEX_PROJECT_ID: "proj",
          ANTHROPIC_VERTEX_BASE_URL: f.url,
          GOOGLE_APPLICATION_CREDENTIALS: path.join(dir, "adc.json"),
          GCE_METADATA_HOST: new URL(metadata.url).host,
        },
      });
      expect(r.stderr).toBe("");
      expect(r.stdout).toBe("via vertex\n");
      expect(f.requests[0]?.headers.authorization).toBe("Bearer google-token");
      expect(sts.requests).toHaveLength(1);
      expect(metadata.requests).toEqual([]);
    } finally {
      await sts.close();
    }
  });

  it("no credentials anywhere, off Google Cloud: one line saying what to set, no MetadataLookupWarning, the metadata server never asked", async ({
    project,
    front,
    metadata,
    cli,
  }) => {
    project({ "agent.md": AGENT });
    const f = await front("vertex");
    const r = await cli(["-p", "go"], {
      env: {
        CLAUDE_CODE_USE_VERTEX: "1",
        CLOUD_ML_REGION: "us-east5",
        ANTHROPIC_VERTEX_PROJECT_ID: "proj",
        ANTHROPIC_VERTEX_BASE_URL: f.url,
        GCE_METADATA_HOST: new URL(metadata.url).host,
      },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^agentmd: Google Vertex AI: has no credentials to use: run `gcloud auth application-default login` or set GOOGLE_APPLICATION_CREDENTIALS/,
    );
    expect(r.stderr).not.toMatch(/MetadataLookupWarning|Warning/);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(metadata.requests).toEqual([]);
    expect(f.requests).toHaveLength(0);
  });
});

describe("Google Vertex AI where the credentials do come from the metadata server, or name no project", () => {
  it("on Google Cloud (METADATA_SERVER_DETECTION says so): the metadata server's token signs the run", async ({
    project,
    fake,
    front,
    cli,
  }) => {
    const server = await recorder((p) =>
      p.includes("/service-accounts/default/token")
        ? { status: 200, body: { access_token: "metadata-token", expires_in: 3600, token_type: "Bearer" } }
        : { status: 404, body: {} },
    );
    try {
      project({ "agent.md": AGENT });
      const f = await front("vertex");
      fake.push(text("on google cloud"));
      const r = await cli(["-p", "go"], {
        env: {
          CLAUDE_CODE_USE_VERTEX: "1",
          CLOUD_ML_REGION: "us-east5",
          ANTHROPIC_VERTEX_PROJECT_ID: "proj",
          ANTHROPIC_VERTEX_BASE_URL: f.url,
          METADATA_SERVER_DETECTION: "assume-present",
          GCE_METADATA_HOST: new URL(server.url).host,
        },
      });
      expect(r.stderr).toBe("");
      expect(r.stdout).toBe("on google cloud\n");
      expect(f.requests[0]?.headers.authorization).toBe("Bearer metadata-token");
    } finally {
      await server.close();
    }
  });

  it("a key file that names no project, and no project set: one line naming the variable, nothing asked", async ({
    project,
    dir,
    front,
    metadata,
    cli,
  }) => {
    project({
      "agent.md": AGENT,
      "adc.json": JSON.stringify({
        type: "external_account",
        audience: "//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/p/providers/x",
        subject_token_type: "urn:ietf:params:oauth:token-type:jwt",
        token_url: `${metadata.url}/v1/token`,
        credential_source: { file: path.join(dir, "adc.json") },
      }),
    });
    const f = await front("vertex");
    const r = await cli(["-p", "go"], {
      env: {
        CLAUDE_CODE_USE_VERTEX: "1",
        CLOUD_ML_REGION: "us-east5",
        ANTHROPIC_VERTEX_BASE_URL: f.url,
        GOOGLE_APPLICATION_CREDENTIALS: path.join(dir, "adc.json"),
        GCE_METADATA_HOST: new URL(metadata.url).host,
      },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^agentmd: Google Vertex AI: needs a project: set ANTHROPIC_VERTEX_PROJECT_ID/);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(metadata.requests).toEqual([]);
    expect(f.requests).toHaveLength(0);
  });
});

/**
 * A copy of the built CLI installed without the optional provider clients: its node_modules links
 * every package of this checkout's but the three clients.
 */
function installWithoutClients(dir: string): string {
  const root = path.join(dir, "install");
  cpSync(path.join(REPO_ROOT, "bin"), path.join(root, "bin"), { recursive: true });
  cpSync(path.join(REPO_ROOT, "dist", "bundle"), path.join(root, "dist", "bundle"), { recursive: true });
  cpSync(path.join(REPO_ROOT, "package.json"), path.join(root, "package.json"));
  const from = path.join(REPO_ROOT, "node_modules");
  const to = path.join(root, "node_modules");
  const clients = new Set(["bedrock-sdk", "vertex-sdk", "foundry-sdk"]);
  for (const name of readdirSync(from)) {
    if (name !== "@anthropic-ai") {
      mkdirSync(to, { recursive: true });
      symlinkSync(path.join(from, name), path.join(to, name));
      continue;
    }
    mkdirSync(path.join(to, name), { recursive: true });
    for (const pkg of readdirSync(path.join(from, name)))
      if (!clients.has(pkg)) symlinkSync(path.join(from, name, pkg), path.join(to, name, pkg));
  }
  return path.join(root, "bin", "agentmd.js");
}

/** Each test below starts the CLI two or three times, on a machine that may be busy. */
const SPAWNS = 60_000;

describe("an install without the provider clients", { timeout: SPAWNS }, () => {
  const bedrock = {
    CLAUDE_CODE_USE_BEDROCK: "1",
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: "AKID",
    AWS_SECRET_ACCESS_KEY: "s",
    AWS_EC2_METADATA_DISABLED: "true",
  };

  it("runs on the Anthropic API; a run on Bedrock is one line naming the package to install, no request", async ({
    project,
    dir,
    fake,
    cli,
  }) => {
    project({ "agent.md": AGENT });
    const entry = installWithoutClients(dir);
    fake.push(text("direct"));
    const direct = await cli(["-p", "go"], { entry });
    expect(direct.stderr).toBe("");
    expect(direct.stdout).toBe("direct\n");
    const run = await cli(["-p", "go"], { entry, env: bedrock });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      "agentmd: Amazon Bedrock: its client @anthropic-ai/bedrock-sdk is not installed: run `npm install -g @anthropic-ai/bedrock-sdk` (or `npm install @anthropic-ai/bedrock-sdk` in the project whose agentmd runs)\n",
    );
    expect(fake.requests).toHaveLength(1);
  });

  it("check warns of the missing client; a run on Vertex AI names its package", async ({
    project,
    dir,
    fake,
    cli,
  }) => {
    project({ "agent.md": AGENT });
    const entry = installWithoutClients(dir);
    const check = await cli(["check"], { entry, env: bedrock });
    expect(check.stdout).toContain(
      "warning: Amazon Bedrock needs its client @anthropic-ai/bedrock-sdk, which is not installed: run `npm install -g @anthropic-ai/bedrock-sdk`",
    );
    expect((await cli(["check", "--strict"], { entry, env: bedrock })).code).toBe(1);
    const vertex = await cli(["-p", "go"], {
      entry,
      env: { CLAUDE_CODE_USE_VERTEX: "1", CLOUD_ML_REGION: "global", ANTHROPIC_VERTEX_PROJECT_ID: "p" },
    });
    expect(vertex.stderr).toMatch(
      /^agentmd: Google Vertex AI: its client @anthropic-ai\/vertex-sdk is not installed/,
    );
    expect(fake.requests).toHaveLength(0);
  });
});
