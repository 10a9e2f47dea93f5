/** The names of the runner's environment a stdio server inherits; its own `env` adds to them. */
const INHERITED = ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "TMPDIR"];
/** A trace context agentmd was started in goes on to its stdio servers (traced: their start-up span's). */
const TRACE_CONTEXT = ["TRACEPARENT", "TRACESTATE"];

/** The largest message a stdio server may send (the SDK's default is 10 MB). */
export const MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

/** The environment a stdio server starts with (before its own `env`); traced: under its start-up span. */
export function stdioEnv(
  from: Readonly<Record<string, string | undefined>>,
  traceparent: string | undefined,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of [...INHERITED, ...TRACE_CONTEXT]) {
    const v = from[k];
    if (typeof v === "string") env[k] = v;
  }
  if (traceparent) env.TRACEPARENT = traceparent;
  return env;
}
