import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect } from "vitest";
import { test } from "../support/fixture.js";
import { REPO_ROOT } from "../support/fixtures.js";
import { modulesInLog } from "../support/loaded-modules.js";
import { type OtlpReceiver, startOtlpReceiver } from "../support/otlp-receiver.js";
import { call, text } from "../support/script.js";
import { until } from "../support/until.js";

/**
 * Tracing as a user's `agentmd` does it (the built CLI, its own process): nothing of OpenTelemetry
 * is loaded without the variables, protobuf is what is sent by default, and the spans of a run
 * stopped by SIGTERM are sent before the process exits.
 */
let receiver: OtlpReceiver;
beforeEach(async () => {
  receiver = await startOtlpReceiver();
});
afterEach(() => receiver.close());

const PROJECT = { "agent.md": "---\nname: main\nallowed-tools: Bash\n---\nYou run things.\n" };
const preload = `--import=${path.join(REPO_ROOT, "test/support/log-imports.mjs")}`;
const otlp = () => ({ OTEL_TRACES_EXPORTER: "otlp", OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
// OpenTelemetry's SDK and exporters are bundled into chunks loaded only when tracing is on: what a
// chunk holds counts. Its API (a no-op until an SDK registers) is part of the model client's.
const loaded = (log: string) =>
  modulesInLog(log).filter((m) => m.includes("/@opentelemetry/") && !m.includes("/@opentelemetry/api/"));

describe("agentmd run, traced or not", () => {
  test("without the variables no OpenTelemetry module is loaded and nothing is sent", async ({
    project,
    fake,
    cli,
    dir,
  }) => {
    project(PROJECT);
    const log = path.join(dir, "imports.log");
    fake.push(call("Bash", { command: "echo hi" }), text("done"));
    const r = await cli(["run", "go"], { env: { NODE_OPTIONS: preload, AGENTMD_IMPORTS_LOG: log } });
    expect(r.code).toBe(0);
    expect(loaded(log)).toEqual([]);
    expect(receiver.requests).toEqual([]);

    // The same run traced: the SDK is loaded (the log can see it), and protobuf is sent.
    fake.push(call("Bash", { command: "echo hi" }), text("done"));
    const traced = await cli(["run", "go"], {
      env: { NODE_OPTIONS: preload, AGENTMD_IMPORTS_LOG: log, ...otlp() },
    });
    expect(traced.stderr).toBe("");
    expect(loaded(log).some((u) => u.includes("/@opentelemetry/sdk-trace/"))).toBe(true);
    expect(receiver.requests.map((q) => [q.path, q.contentType])).toEqual([
      ["/v1/traces", "application/x-protobuf"],
    ]);
    const body = receiver.requests[0]?.body.toString("latin1") ?? "";
    for (const name of ["invoke_agent main", "execute_tool Bash", "chat ", "agentmd.permission.rule"])
      expect(body).toContain(name);
  });

  test("SIGTERM during a command: the run ends as interrupted and its spans are sent before the exit", async ({
    project,
    fake,
    cli,
    dir,
  }) => {
    project(PROJECT);
    const marker = path.join(dir, "started");
    fake.push(call("Bash", { command: `touch '${marker}'; sleep 30` }), text("never"));
    let child: import("node:child_process").ChildProcess | undefined;
    const run = cli(["run", "go"], {
      env: { ...otlp(), OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" },
      onStart: (c) => (child = c),
    });
    await until(() => existsSync(marker), { what: "the command to start" });
    child?.kill("SIGTERM");
    const r = await run;
    expect(r.code).toBe(143);
    const spans = receiver.spans();
    const main = spans.find((s) => s.name === "invoke_agent main");
    expect(main?.attributes["agentmd.run.outcome"]).toBe("aborted");
    expect(spans.find((s) => s.name === "execute_tool Bash")?.parentSpanId).toBe(main?.spanId);
    expect(spans.find((s) => s.name === "execute_tool Bash")?.attributes["agentmd.tool.decision"]).toBe(
      "interrupted",
    );
  });
});
