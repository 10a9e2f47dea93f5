import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A small OTLP/HTTP receiver for tests: it answers every POST 200 and keeps what came. `spans()`
 * decodes the OTLP/JSON requests (what `http/json` sends) into plain spans.
 */
export interface OtlpReceiver {
  /** The base URL: `OTEL_EXPORTER_OTLP_ENDPOINT` (spans arrive at `/v1/traces`). */
  readonly url: string;
  readonly requests: readonly ReceivedRequest[];
  spans(): ReceivedSpan[];
  close(): Promise<void>;
}

export interface ReceivedRequest {
  readonly path: string;
  readonly contentType: string;
  readonly body: Buffer;
}

export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly attributes: Readonly<Record<string, unknown>>;
  /** 0 unset, 1 ok, 2 error. */
  readonly status: { readonly code: number; readonly message?: string };
  readonly resource: Readonly<Record<string, unknown>>;
  readonly startNs: bigint;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const requests: ReceivedRequest[] = [];
  const server = createServer(async (req, res) => {
    const body = await read(req);
    requests.push({ path: req.url ?? "", contentType: req.headers["content-type"] ?? "", body });
    res.writeHead(200, { "content-type": req.headers["content-type"] ?? "application/json" });
    res.end(req.headers["content-type"]?.includes("json") ? "{}" : "");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    spans: () => requests.filter((r) => r.contentType.includes("json")).flatMap((r) => decode(r.body)),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function read(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

interface JsonAttribute {
  key: string;
  value: JsonValue;
}
type JsonValue = {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: JsonValue[] };
};

function decode(body: Buffer): ReceivedSpan[] {
  const data = JSON.parse(body.toString("utf8")) as {
    resourceSpans?: {
      resource?: { attributes?: JsonAttribute[] };
      scopeSpans?: {
        spans?: {
          traceId: string;
          spanId: string;
          parentSpanId?: string;
          name: string;
          attributes?: JsonAttribute[];
          status?: { code?: number; message?: string };
          startTimeUnixNano: string | number;
        }[];
      }[];
    }[];
  };
  return (data.resourceSpans ?? []).flatMap((rs) =>
    (rs.scopeSpans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((s) => ({
        traceId: s.traceId,
        spanId: s.spanId,
        ...(s.parentSpanId && { parentSpanId: s.parentSpanId }),
        name: s.name,
        attributes: attributes(s.attributes),
        status: { code: s.status?.code ?? 0, ...(s.status?.message && { message: s.status.message }) },
        resource: attributes(rs.resource?.attributes),
        startNs: BigInt(s.startTimeUnixNano),
      })),
    ),
  );
}

const attributes = (list: JsonAttribute[] | undefined) =>
  Object.fromEntries((list ?? []).map((a) => [a.key, plainValue(a.value)]));

function plainValue(v: JsonValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(plainValue);
  return undefined;
}

/**
 * The spans as an indented tree, children in the order they started: what a tracing backend's
 * waterfall shows, in text. `label` adds what to say of each span.
 */
export function spanTree(
  spans: readonly ReceivedSpan[],
  label: (s: ReceivedSpan) => string = () => "",
): string {
  const ids = new Set(spans.map((s) => s.spanId));
  const children = (parent: string | undefined) =>
    spans
      .filter((s) =>
        parent === undefined ? !s.parentSpanId || !ids.has(s.parentSpanId) : s.parentSpanId === parent,
      )
      .sort((a, b) => (a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : 0));
  const lines: string[] = [];
  const walk = (s: ReceivedSpan, depth: number) => {
    const extra = label(s);
    lines.push(`${"  ".repeat(depth)}${s.name}${extra ? `  ${extra}` : ""}`);
    for (const c of children(s.spanId)) walk(c, depth + 1);
  };
  for (const r of children(undefined)) walk(r, 0);
  return lines.join("\n");
}
