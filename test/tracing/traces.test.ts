import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRunner } from "../../src/invocation/runner.js";
import { DEFAULT_MODEL } from "../../src/shared/defaults.js";
import { runCli } from "../support/cli.js";
import { type FakeAnthropic, startFakeAnthropic } from "../support/fake-anthropic.js";
import { tempDir } from "../support/fixtures.js";
import {
  type OtlpReceiver,
  type ReceivedSpan,
  spanTree,
  startOtlpReceiver,
} from "../support/otlp-receiver.js";
import { drain } from "../support/runs.js";
import { call, calls, resultsSent, resultText, text, use } from "../support/script.js";
import { writeFiles } from "../support/tools.js";
import { trustProject } from "../support/trust.js";

/**
 * A run with a subagent, a denied call and a Bash command, traced to a real OTLP/HTTP receiver:
 * one trace, the spans in parent/child order, the decision (and its rule) on each call's span,
 * and the Bash command given the `traceparent` of its own span.
 */
let dir: string;
let cleanup: () => void;
let fake: FakeAnthropic;
let receiver: OtlpReceiver;

const PROJECT = {
  "agent.md": [
    "---",
    "name: main",
    "allowed-tools: Task, Read, Bash(echo:*)",
    "hooks:",
    "  PreToolUse:",
    "    - matcher: Bash",
    '      command: echo "$TRACEPARENT" >> hook-tp.txt',
    "---",
    "You are the main agent.",
  ].join("\n"),
  "agents/reviewer.md": "---\nname: reviewer\ndescription: Reviews.\ntools: Read\n---\nYou review.\n",
  "a.txt": "alpha\n",
};

beforeEach(async () => {
  ({ dir, cleanup } = tempDir());
  writeFiles(dir, PROJECT);
  trustProject(dir, dir);
  receiver = await startOtlpReceiver();
});
afterEach(async () => {
  await fake?.close();
  await receiver.close();
  cleanup();
});

const script = () => [
  call("Task", { description: "review", prompt: "read a.txt", subagent_type: "reviewer" }, "task1"),
  call("Read", { file_path: "a.txt" }, "read1"),
  text("a.txt says alpha"),
  calls(
    use("Bash", { command: "echo tp=$TRACEPARENT" }, "bash1"),
    use("Bash", { command: "rm -rf a.txt" }, "bash2"),
  ),
  text("done"),
];

const traced = (protocol: string) => ({
  ANTHROPIC_API_KEY: "k",
  ANTHROPIC_BASE_URL: fake.url,
  HOME: dir,
  PATH: process.env.PATH ?? "",
  OTEL_TRACES_EXPORTER: "otlp",
  OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
  OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
  OTEL_SERVICE_NAME: "review-bot",
  OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=test,team=tools%20team",
});

const named = (spans: ReceivedSpan[], name: string) => {
  const found = spans.filter((s) => s.name === name);
  expect(found, name).toHaveLength(1);
  return found[0] as ReceivedSpan;
};

describe("traces of a run", () => {
  it("are one trace: invoke_agent, chat and execute_tool spans in order, decisions on the calls", async () => {
    fake = await startFakeAnthropic(script());
    const r = await runCli(["run", "go"], { cwd: dir, env: traced("http/json") });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const spans = receiver.spans();
    expect(receiver.requests.every((q) => q.path === "/v1/traces")).toBe(true);
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
    expect(spanTree(spans)).toBe(
      [
        "invoke_agent main",
        `  chat ${DEFAULT_MODEL}`,
        "  execute_tool Task",
        "    invoke_agent reviewer",
        `      chat ${DEFAULT_MODEL}`,
        "      execute_tool Read",
        `      chat ${DEFAULT_MODEL}`,
        `  chat ${DEFAULT_MODEL}`,
        "  execute_tool Bash",
        "    hook PreToolUse",
        "  execute_tool Bash",
        `  chat ${DEFAULT_MODEL}`,
      ].join("\n"),
    );
    const main = named(spans, "invoke_agent main");
    expect(main.resource).toMatchObject({
      "service.name": "review-bot",
      "deployment.environment": "test",
      team: "tools team",
    });
    expect(main.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "main",
      "agentmd.run.outcome": "done",
      "agentmd.permission.list": ["Bash(echo:*)", "Task", "Read"],
    });
    expect(named(spans, "invoke_agent reviewer").attributes["agentmd.permission.list"]).toEqual(["Read"]);
    const chat = spans.find((s) => s.name.startsWith("chat "));
    expect(chat?.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.request.model": DEFAULT_MODEL,
      "gen_ai.response.finish_reasons": ["tool_use"],
    });
    expect(chat?.attributes["gen_ai.usage.output_tokens"]).toBeTypeOf("number");
    expect(chat?.attributes["gen_ai.usage.cache_read.input_tokens"]).toBeTypeOf("number");

    const [allowed, denied] = spans
      .filter((s) => s.name === "execute_tool Bash")
      .sort((a, b) =>
        String(a.attributes["gen_ai.tool.call.id"]).localeCompare(
          String(b.attributes["gen_ai.tool.call.id"]),
        ),
      );
    expect(allowed?.attributes).toMatchObject({
      "gen_ai.tool.name": "Bash",
      "gen_ai.tool.call.id": "bash1",
      "agentmd.tool.decision": "allowed",
      "agentmd.permission.verdict": "allowed",
      "agentmd.permission.rule": "Bash(echo:*)",
      "agentmd.permission.rule.at": "agent.md:3",
    });
    expect(allowed?.status.code).toBe(0);
    expect(denied?.attributes).toMatchObject({
      "gen_ai.tool.call.id": "bash2",
      "agentmd.tool.decision": "denied",
      "agentmd.permission.verdict": "denied",
      "agentmd.permission.reason": "no-pattern-matched",
      "agentmd.permission.rule": "Bash(echo:*)",
      "agentmd.permission.rule.at": "agent.md:3",
      "error.type": "denied",
    });
    expect(denied?.status).toMatchObject({ code: 2 });
    expect(denied?.status.message).toContain("rm -rf a.txt");
    expect(named(spans, "execute_tool Read").attributes).toMatchObject({
      "agentmd.permission.rule": "Read",
      "agentmd.permission.rule.at": "agent.md:3, agents/reviewer.md:4",
    });

    // The command ran with the traceparent of its own span.
    const echoed = resultText(resultsSent(fake, 4).find((b) => b.tool_use_id === "bash1"));
    expect(echoed.split("\n")[0]).toBe(`tp=00-${allowed?.traceId}-${allowed?.spanId}-01`);
    // Its PreToolUse hook with its own span's, a child of the call's (the denied call never reached its hooks).
    const hook = named(spans, "hook PreToolUse");
    expect(hook.parentSpanId).toBe(allowed?.spanId);
    expect(readFileSync(path.join(dir, "hook-tp.txt"), "utf8")).toBe(
      `00-${hook.traceId}-${hook.spanId}-01\n`,
    );
  });

  it("are the same from --replay, offline, as from the run recorded", async () => {
    fake = await startFakeAnthropic(script());
    const recording = path.join(dir, "run.jsonl");
    expect(
      (await runCli(["run", "--record", recording, "go"], { cwd: dir, env: traced("http/json") })).code,
    ).toBe(0);
    const live = receiver.spans();
    const { ANTHROPIC_BASE_URL: _, ...offline } = traced("http/json");
    // What the hook wrote is not code the folder was trusted with: it goes, as before the recording.
    rmSync(path.join(dir, "hook-tp.txt"));
    const replayed = await runCli(["run", "--replay", recording], { cwd: dir, env: offline });
    expect(replayed.stderr).toBe("");
    const again = receiver.spans().slice(live.length);
    const shape = (spans: ReceivedSpan[]) =>
      spanTree(spans, (s) =>
        [s.attributes["agentmd.tool.decision"], s.attributes["agentmd.permission.rule"], s.status.code]
          .filter((x) => x !== undefined)
          .join(" "),
      );
    expect(shape(again)).toBe(shape(live));
    expect(shape(again)).toContain("execute_tool Bash  denied Bash(echo:*) 2");
    expect(new Set(again.map((s) => s.traceId)).size).toBe(1);
  });

  it("of a queue's job go on from the context it carries; a protocol agentmd cannot speak is said", async () => {
    fake = await startFakeAnthropic([text("one"), text("two")]);
    const parent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    const runner = createRunner({
      projectDir: dir,
      env: { ...traced("http/json"), HOME: dir },
      model: { apiKey: "k", baseURL: fake.url },
    });
    await drain(runner.run("go", { traceparent: parent }));
    await runner.close();
    expect(receiver.spans().find((s) => s.name === "invoke_agent main")).toMatchObject({
      traceId: "0af7651916cd43dd8448eb211c80319c",
      parentSpanId: "b7ad6b7169203331",
    });

    const grpc = createRunner({
      projectDir: dir,
      env: { ...traced("grpc"), HOME: dir },
      model: { apiKey: "k", baseURL: fake.url },
    });
    const { events } = await drain(grpc.run("go"));
    await grpc.close();
    expect(events.filter((e) => e.type === "warning").map((e) => e.type === "warning" && e.message)).toEqual([
      "traces are not sent: OTEL_EXPORTER_OTLP_PROTOCOL 'grpc' is not one agentmd speaks (http/protobuf or http/json)",
    ]);
  });
});
