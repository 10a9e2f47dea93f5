import {
  type Context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  ROOT_CONTEXT,
  trace,
} from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtobufExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { spanObserver } from "./span-observer.js";
import type { TraceSettings } from "./trace-settings.js";
import type { Tracing } from "./trace-types.js";

/** How long the exit waits for the last spans to be sent (the CLI exits 5 s after a SIGTERM). */
const SHUTDOWN_MS = 3_000;

const propagator = new W3CTraceContextPropagator();

/** The context a `traceparent` names, or the root when there is none (or it is not valid). */
export function contextOf(traceparent: string | undefined): Context {
  if (!traceparent) return ROOT_CONTEXT;
  return propagator.extract(ROOT_CONTEXT, { traceparent }, defaultTextMapGetter);
}

/** The `traceparent` of a context's span. */
export function traceparentOf(cx: Context): string | undefined {
  const carrier: Record<string, string> = {};
  propagator.inject(cx, carrier, defaultTextMapSetter);
  return carrier.traceparent;
}

/**
 * The tracer provider of a process: its spans batched and posted to the OTLP endpoint, as protobuf
 * or JSON. It is not registered globally: agentmd's spans are its own, made from its runs' events.
 */
export function createOtelTracing(s: TraceSettings): Tracing {
  const Exporter = s.protocol === "http/json" ? JsonExporter : ProtobufExporter;
  const exporter = new Exporter({ url: s.url, headers: { ...s.headers }, timeoutMillis: SHUTDOWN_MS });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ ...s.resource }),
    spanProcessors: [new BatchSpanProcessor({ exporter })],
  });
  const tracer = provider.getTracer("agentmd");
  let shut: Promise<void> | undefined;
  return {
    forRun: (parent) => spanObserver(tracer, contextOf(parent ?? s.parent), traceparentOf),
    span: (name, attributes) => {
      const span = tracer.startSpan(
        name,
        { ...(attributes && { attributes: { ...attributes } }) },
        contextOf(s.parent),
      );
      return { traceparent: traceparentOf(trace.setSpan(ROOT_CONTEXT, span)), end: () => span.end() };
    },
    shutdown: () => {
      shut ??= within(provider.shutdown(), SHUTDOWN_MS);
      return shut;
    },
  };
}

function within(p: Promise<void>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref();
    p.catch(() => {}).finally(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
