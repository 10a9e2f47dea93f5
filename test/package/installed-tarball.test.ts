import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { runBinAsync } from "../support/cli.js";
import { test } from "../support/fixture.js";
import { REPO_ROOT, tempDir } from "../support/fixtures.js";
import { mcpJson, stdioServer } from "../support/mcp.js";
import { type OtlpReceiver, startOtlpReceiver } from "../support/otlp-receiver.js";
import { call, text } from "../support/script.js";
import { writeFiles } from "../support/tools.js";
import { trustProject } from "../support/trust.js";

/**
 * The package as `npm pack` makes it, installed into a project of a user's as npm lays it out: the
 * tarball unpacked as node_modules/agentmd-cli, the dependencies its package.json declares beside it
 * (linked from this checkout: no registry), its bin linked, and nothing else but `typescript` and
 * `@types/node`. Packed and installed once for the file; dist/ is built by the test setup.
 */
let install: { project: string; bin: string; cleanup: () => void };

beforeAll(() => {
  const t = tempDir();
  const packed = JSON.parse(
    execFileSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", t.dir], {
      cwd: REPO_ROOT,
      encoding: "utf8",
    }),
  ) as { filename: string }[];
  const project = path.join(t.dir, "project");
  const pkgDir = path.join(project, "node_modules", "agentmd-cli");
  mkdirSync(pkgDir, { recursive: true });
  execFileSync("tar", [
    "-xzf",
    path.join(t.dir, packed[0]?.filename ?? ""),
    "-C",
    pkgDir,
    "--strip-components=1",
  ]);
  const pkg = JSON.parse(readFileSync(path.join(pkgDir, "package.json"), "utf8")) as {
    dependencies?: Record<string, string>;
    optionalDependencies?: Record<string, string>;
  };
  const deps = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.optionalDependencies ?? {})];
  for (const dep of [...deps, "typescript", "@types/node"]) {
    mkdirSync(path.dirname(path.join(project, "node_modules", dep)), { recursive: true });
    symlinkSync(path.join(REPO_ROOT, "node_modules", dep), path.join(project, "node_modules", dep));
  }
  mkdirSync(path.join(project, "node_modules", ".bin"));
  const bin = path.join(project, "node_modules", ".bin", "agentmd");
  symlinkSync("../agentmd-cli/bin/agentmd", bin);
  writeFiles(project, {
    "package.json": JSON.stringify({ name: "consumer", private: true, type: "module" }),
  });
  install = { project, bin, cleanup: t.cleanup };
}, 120_000);
afterAll(() => install?.cleanup());

const entry = () => path.join(install.project, "node_modules/agentmd-cli/bin/agentmd.js");

describe("a library user's type-check of the installed package", () => {
  test("passes tsc --strict --skipLibCheck false and reads one declaration file of the package, none of its dependencies'", () => {
    const { project } = install;
    writeFiles(project, {
      "tsconfig.json": JSON.stringify({
        compilerOptions: {
          module: "nodenext",
          moduleResolution: "nodenext",
          target: "es2022",
          types: ["node"],
        },
        files: ["consumer.ts"],
      }),
      "consumer.ts": `import { createRunner, type Decision, decide, defineTool, loadProject, ok, type RunEvent } from "agentmd-cli";
const echo = defineTool({
  name: "Echo",
  description: "Echoes its text.",
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } as const,
  execute: async (input) => ok(input.text.toUpperCase()),
});
defineTool({
  name: "Count",
  description: "Counts.",
  inputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] } as const,
  // @ts-expect-error the input's type is the schema's: n is a number
  execute: async (input) => ok(input.n.toUpperCase()),
});
export const loaded = loadProject(".").diagnostics.length;
export const runner = createRunner({ tools: { extra: [echo] } });
export const judge = (...args: Parameters<typeof decide>): Decision => decide(...args);
export const blocks = (e: RunEvent): number => (e.type === "message_end" ? e.content.length : 0);
`,
    });
    const tsc = spawnSync(
      process.execPath,
      [
        path.join(project, "node_modules/typescript/bin/tsc"),
        "-p",
        project,
        "--strict",
        "--skipLibCheck",
        "false",
        "--noEmit",
        "--listFiles",
      ],
      { encoding: "utf8" },
    );
    const files = tsc.stdout.split("\n").filter((l) => l.startsWith("/"));
    expect(tsc.stdout.split("\n").filter((l) => l && !l.startsWith("/"))).toEqual([]);
    expect(tsc.status).toBe(0);
    // What a type-check reads besides TypeScript's and Node's own: the consumer and one file of ours.
    const ours = files.filter((f) => !/\/(typescript\/lib|@types\/node|undici-types)\//.test(f));
    expect(ours.map((f) => path.relative(project, f)).sort()).toEqual([
      "consumer.ts",
      "node_modules/agentmd-cli/dist/bundle/index.d.ts",
    ]);
    // Before the types were one file: ~800 files (the Anthropic SDK's 230, zod's, OpenTelemetry's, ...).
    expect(files.length).toBeLessThan(200);
  }, 300_000);
});

describe("the installed CLI and library, as a user runs them", () => {
  test("--version, check, the demo's replay and import('agentmd-cli')", async ({ project, cli }) => {
    const version = await cli(["--version"], { entry: entry() });
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+ \(agentmd-cli\)\n$/);
    // Through npm's bin link and the shell launcher, as `agentmd` on a PATH runs.
    const linked = spawnSync(install.bin, ["--version"], { encoding: "utf8" });
    expect(linked.stdout).toBe(version.stdout);

    project({ "agent.md": "---\nname: main\nallowed-tools: Read, Bash(git status:*)\n---\nYou answer.\n" });
    const check = await cli(["check"], { entry: entry() });
    expect(check.stderr).toBe("");
    expect(check.code).toBe(0);

    const demo = await runBinAsync(["run", "--replay", "demo/session.jsonl"], {
      cwd: REPO_ROOT,
      entry: entry(),
    });
    expect(demo.stderr).toBe("");
    expect(demo.stdout).toMatch(/— done · 5 turns · /);

    const library = spawnSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        "const m = await import('agentmd-cli'); console.log(typeof m.createRunner, typeof m.loadProject)",
      ],
      { cwd: install.project, encoding: "utf8" },
    );
    expect(library.stderr).toBe("");
    expect(library.stdout).toBe("function function\n");
  }, 120_000);

  test("a run through an MCP server (the MCP SDK is in the bundle) and a custom tool in .ts (through jiti)", async ({
    project,
    dir,
    fake,
    cli,
  }) => {
    project({
      ".mcp.json": mcpJson({ github: stdioServer("github") }),
      "agent.md": "---\nallowed-tools: Shout, mcp__github__get_issue\n---\nMain.\n",
      "tools/shout.ts": `import { defineTool, ok } from "agentmd-cli";
export const shout = defineTool({
  name: "Shout",
  description: "Shouts.",
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } as const,
  execute: async ({ text }) => ok(text.toUpperCase()),
});
`,
    });
    trustProject(dir);
    fake.push(
      call("mcp__github__get_issue", { number: 7 }),
      call("Shout", { text: "red" }),
      text("it is red"),
    );
    const r = await cli(["run", "go"], { entry: entry() });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("⏺ mcp__github__get_issue");
    expect(r.stdout).toContain("⏺ Shout");
    expect(r.stdout).toContain("it is red");
    expect(JSON.stringify(fake.requests[1]?.body ?? "")).toContain("tool_result");
    expect(JSON.stringify(fake.requests[2]?.body ?? "")).toContain("RED");
  }, 120_000);

  test("WebFetch turns an HTML page into Markdown: its converter is in the bundle, not an installed package", async ({
    project,
    fake,
    cli,
  }) => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(
        "<html><body><h1>Hello</h1><table><tr><th>flag</th></tr><tr><td>--fast</td></tr></table></body></html>",
      );
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/page`;
      project({ "agent.md": "---\nname: main\nallowed-tools: WebFetch\n---\nYou answer.\n" });
      fake.push(call("WebFetch", { url, prompt: "the heading" }), text("read it"));
      const r = await cli(["run", "go"], { entry: entry() });
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      const sent = JSON.stringify(fake.requests[1]?.body ?? "");
      expect(sent).toContain("# Hello");
      expect(sent).toContain("| flag |");
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  }, 120_000);

  test("tracing with the OTEL variables sends spans: nothing to install for it", async ({
    project,
    fake,
    cli,
  }) => {
    const receiver: OtlpReceiver = await startOtlpReceiver();
    try {
      project({ "agent.md": "---\nname: main\nallowed-tools: Read\n---\nYou answer.\n" });
      fake.push(text("done"));
      const r = await cli(["run", "go"], {
        entry: entry(),
        env: { OTEL_TRACES_EXPORTER: "otlp", OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url },
      });
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(receiver.requests.map((q) => q.path)).toEqual(["/v1/traces"]);
      expect(receiver.requests[0]?.body.toString("latin1")).toContain("invoke_agent main");
    } finally {
      await receiver.close();
    }
  }, 120_000);

  test("a cloud provider whose optional client is not installed is one line naming it", async ({
    project,
    cli,
  }) => {
    project({ "agent.md": "---\nname: main\nallowed-tools: Read\n---\nYou answer.\n" });
    const r = await cli(["-p", "go"], {
      entry: entry(),
      env: {
        CLAUDE_CODE_USE_BEDROCK: "1",
        AWS_REGION: "us-east-1",
        AWS_ACCESS_KEY_ID: "AKID",
        AWS_SECRET_ACCESS_KEY: "s",
        AWS_EC2_METADATA_DISABLED: "true",
        METADATA_SERVER_DETECTION: "none",
      },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "agentmd: Amazon Bedrock: its client @anthropic-ai/bedrock-sdk is not installed: run `npm install -g @anthropic-ai/bedrock-sdk` (or `npm install @anthropic-ai/bedrock-sdk` in the project whose agentmd runs)\n",
    );
  }, 60_000);
});
