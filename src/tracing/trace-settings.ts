/**
 * Whether a process sends traces, and where, from the standard OpenTelemetry variables. Pure: the
 * environment is given. Nothing is sent unless `OTEL_TRACES_EXPORTER` names `otlp`.
 */
export interface TraceSettings {
  /** The full URL spans are posted to (`…/v1/traces`). */
  readonly url: string;
  readonly protocol: "http/protobuf" | "http/json";
  readonly headers: Readonly<Record<string, string>>;
  /** The resource: `service.name` and `OTEL_RESOURCE_ATTRIBUTES`. */
  readonly resource: Readonly<Record<string, string>>;
  /** The context the process was started in (`TRACEPARENT`), for the runs it starts. */
  readonly parent?: string;
}

export type TraceSetup =
  | { readonly kind: "off" }
  | { readonly kind: "on"; readonly settings: TraceSettings }
  /** Asked for, but not in a way agentmd can send: said once as a warning, and nothing is sent. */
  | { readonly kind: "unusable"; readonly message: string };

type Env = Readonly<Record<string, string | undefined>>;

const DEFAULT_ENDPOINT = "http://localhost:4318";
const PROTOCOLS = new Set(["http/protobuf", "http/json"]);

export function traceSetup(env: Env): TraceSetup {
  const exporters = (env.OTEL_TRACES_EXPORTER ?? "").split(",").map((s) => s.trim());
  if (!exporters.includes("otlp") || env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true")
    return { kind: "off" };
  const protocol = (
    env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ??
    env.OTEL_EXPORTER_OTLP_PROTOCOL ??
    "http/protobuf"
  ).trim();
  if (!PROTOCOLS.has(protocol))
    return {
      kind: "unusable",
      message: `traces are not sent: OTEL_EXPORTER_OTLP_PROTOCOL '${protocol}' is not one agentmd speaks (http/protobuf or http/json)`,
    };
  const url = tracesUrl(env);
  if (!url.ok) return { kind: "unusable", message: `traces are not sent: ${url.message}` };
  const parent = env.TRACEPARENT?.trim();
  return {
    kind: "on",
    settings: {
      url: url.url,
      protocol: protocol as TraceSettings["protocol"],
      headers: { ...pairs(env.OTEL_EXPORTER_OTLP_HEADERS), ...pairs(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS) },
      resource: {
        ...pairs(env.OTEL_RESOURCE_ATTRIBUTES),
        "service.name":
          env.OTEL_SERVICE_NAME?.trim() || pairs(env.OTEL_RESOURCE_ATTRIBUTES)["service.name"] || "agentmd",
      },
      ...(parent && { parent }),
    },
  };
}

/** The traces endpoint is used as given; the general one gets `/v1/traces` (as the spec says). */
function tracesUrl(env: Env): { ok: true; url: string } | { ok: false; message: string } {
  const own = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const general = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  const name = own ? "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT" : "OTEL_EXPORTER_OTLP_ENDPOINT";
  const url = own || `${(general || DEFAULT_ENDPOINT).replace(/\/+$/, "")}/v1/traces`;
  try {
    const u = new URL(url);
    if (u.protocol === "http:" || u.protocol === "https:") return { ok: true, url };
  } catch {
    // said below
  }
  return { ok: false, message: `${name} '${own || general}' is not an http(s) URL` };
}

/** `k=v,k2=v2` (W3C baggage style, values percent-encoded), as the OTLP variables write them. */
function pairs(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (text ?? "").split(",")) {
    const eq = part.indexOf("=");
    if (eq <= 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    try {
      out[key] = decodeURIComponent(value);
    } catch {
      out[key] = value;
    }
  }
  return out;
}
