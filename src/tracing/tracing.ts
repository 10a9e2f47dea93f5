import { traceSetup } from "./trace-settings.js";
import type { Tracing } from "./trace-types.js";

/**
 * The seam between agentmd and OpenTelemetry. This file imports nothing of it: the SDK and its
 * exporters are loaded (`otel-tracing.ts`) only when the standard variables turn tracing on, so a
 * run without them loads and sends nothing.
 */

export type { RunTrace, Tracing, WorkSpan } from "./trace-types.js";

export type OpenedTracing =
  | { readonly tracing?: undefined; readonly warning?: string }
  | { readonly tracing: Tracing; readonly warning?: undefined };

/** Tracing as the environment asks for it: off (nothing loaded), on, or asked for and unusable (said). */
export async function openTracing(env: Readonly<Record<string, string | undefined>>): Promise<OpenedTracing> {
  const setup = traceSetup(env);
  if (setup.kind === "off") return {};
  if (setup.kind === "unusable") return { warning: setup.message };
  try {
    const { createOtelTracing } = await import("./otel-tracing.js");
    return { tracing: createOtelTracing(setup.settings) };
  } catch (e) {
    return {
      warning: `traces are not sent: the OpenTelemetry SDK could not be loaded (${(e as Error).message})`,
    };
  }
}
