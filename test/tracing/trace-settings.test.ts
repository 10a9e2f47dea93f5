import { describe, expect, it } from "vitest";
import { jobDataFor, jobDataOf } from "../../src/batch/job-data.js";
import { traceSetup } from "../../src/tracing/trace-settings.js";

const ON = { OTEL_TRACES_EXPORTER: "otlp" };

describe("traceSetup: the standard variables", () => {
  it.each([
    ["nothing set", {}, { kind: "off" }],
    ["an endpoint alone sends nothing", { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" }, { kind: "off" }],
    ["another exporter", { OTEL_TRACES_EXPORTER: "none" }, { kind: "off" }],
    ["the SDK disabled", { ...ON, OTEL_SDK_DISABLED: "true" }, { kind: "off" }],
  ])("%s: off", (_, env, want) => {
    expect(traceSetup(env)).toEqual(want);
  });

  it.each([
    ["the default endpoint and protocol", ON, "http://localhost:4318/v1/traces", "http/protobuf"],
    [
      "the general endpoint gets /v1/traces",
      { ...ON, OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318/", OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" },
      "http://c:4318/v1/traces",
      "http/json",
    ],
    [
      "the traces endpoint is used as it is, over the general one",
      {
        ...ON,
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318",
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://t.example/otlp",
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
      },
      "https://t.example/otlp",
      "http/json",
    ],
    [
      "a list naming otlp",
      { OTEL_TRACES_EXPORTER: "console, otlp" },
      "http://localhost:4318/v1/traces",
      "http/protobuf",
    ],
  ])("%s", (_, env, url, protocol) => {
    const s = traceSetup(env);
    expect(s.kind === "on" && [s.settings.url, s.settings.protocol]).toEqual([url, protocol]);
  });

  it("takes the service name, the resource attributes (percent-decoded), the headers and TRACEPARENT", () => {
    const s = traceSetup({
      ...ON,
      OTEL_SERVICE_NAME: "bot",
      OTEL_RESOURCE_ATTRIBUTES: "service.name=ignored,team=a%20b,bad,=x",
      OTEL_EXPORTER_OTLP_HEADERS: "x-honeycomb-team=key1,x-a=1",
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: "x-a=2",
      TRACEPARENT: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
    });
    expect(s.kind === "on" && s.settings).toEqual({
      url: "http://localhost:4318/v1/traces",
      protocol: "http/protobuf",
      headers: { "x-honeycomb-team": "key1", "x-a": "2" },
      resource: { "service.name": "bot", team: "a b" },
      parent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
    });
    expect(traceSetup(ON).kind === "on" && traceSetup(ON)).toMatchObject({
      settings: { resource: { "service.name": "agentmd" } },
    });
  });

  it.each([
    [
      { ...ON, OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" },
      "OTEL_EXPORTER_OTLP_PROTOCOL 'grpc' is not one agentmd speaks",
    ],
    [
      { ...ON, OTEL_EXPORTER_OTLP_ENDPOINT: "localhost:4318" },
      "OTEL_EXPORTER_OTLP_ENDPOINT 'localhost:4318' is not an http(s) URL",
    ],
  ])("what cannot be sent is said, and nothing is: %o", (env, message) => {
    const s = traceSetup(env);
    expect(s.kind).toBe("unusable");
    expect(s.kind === "unusable" && s.message).toContain(message);
  });
});

describe("a job's trace context", () => {
  const item = { id: "a", input: { kind: "prompt" as const, text: "hi" } };
  const tp = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

  it("goes from enqueue to the worker with the job's data", () => {
    expect(jobDataOf(jobDataFor("b", item, "v1", { traceparent: tp }))).toEqual({
      batch: "b",
      item,
      projectVersion: "v1",
      traceparent: tp,
    });
    expect(jobDataOf(jobDataFor("b", item, "v1"))).toEqual({ batch: "b", item, projectVersion: "v1" });
  });

  it.each(["junk", `${tp}-extra`, "00-00000000000000000000000000000000-b7ad6b7169203331-01", 42])(
    "one that is not valid (%s) is dropped, and the job still runs",
    (bad) => {
      expect(jobDataOf({ ...jobDataFor("b", item, "v1"), traceparent: bad })).toEqual({
        batch: "b",
        item,
        projectVersion: "v1",
      });
    },
  );
});
