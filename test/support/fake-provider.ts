/**
 * Local fakes of the cloud providers' Claude endpoints, in front of the scripted fake Anthropic API
 * (fake-anthropic.ts), each speaking its provider's wire format as that provider's own SDK client
 * expects it (test/model/fake-provider.test.ts proves each with the SDK before anything else trusts
 * it):
 * - Amazon Bedrock: `POST /model/{id}/invoke-with-response-stream`, the model in the path, the
 *   version and betas in the body, SigV4 or a bearer token, and the answer as AWS's binary event
 *   stream (`chunk` frames whose payload is `{"bytes": base64(event)}`); errors as Bedrock sends them
 *   (`x-amzn-errortype`, `{"message": …}`).
 * - Google Vertex AI: `POST /v1/projects/{p}/locations/{r}/publishers/anthropic/models/{id}:streamRawPredict`,
 *   the answer as server-sent events; errors in Google's shape (`{"error": {"code", "status"}}`).
 * - Microsoft Foundry: `POST /anthropic/v1/messages` with `x-api-key` (the resource's key) or a
 *   Microsoft Entra ID token (`Authorization: Bearer`), as the Messages API.
 * Each request is recorded as the provider received it; what the model answers is the script's.
 */
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { EventStreamCodec } from "@smithy/eventstream-codec";
import { fromUtf8, toUtf8 } from "@smithy/util-utf8";
import type { FakeAnthropic } from "./fake-anthropic.js";

export type ProviderKind = "bedrock" | "vertex" | "foundry";

export interface ProviderRequest {
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  /** The body as the provider received it (no `model` for Bedrock and Vertex: it is in the path). */
  readonly body: Record<string, unknown>;
  /** The model id the request named (from the path, or the body for Foundry). */
  readonly model: string;
}

/** A refusal the fake answers before the model sees the request (an unknown model, throttling, …). */
export interface Refusal {
  readonly status: number;
  /** Bedrock's exception name (`ThrottlingException`), Vertex's status (`RESOURCE_EXHAUSTED`). */
  readonly type: string;
  readonly message: string;
}

export interface FakeProvider {
  /** The base URL its SDK takes (Vertex's ends in /v1; Foundry's in /anthropic/). */
  readonly url: string;
  readonly requests: ProviderRequest[];
  close(): Promise<void>;
}

export interface FakeProviderOptions {
  /** Answer a request with a provider error instead of passing it on (called for each request). */
  readonly refuse?: (req: ProviderRequest) => Refusal | undefined;
}

const ROUTES: Record<ProviderKind, RegExp> = {
  bedrock: /^\/model\/([^/]+)\/invoke-with-response-stream$/,
  vertex:
    /^\/v1\/projects\/[^/]+\/locations\/[^/]+\/publishers\/anthropic\/models\/([^/:]+):streamRawPredict$/,
  foundry: /^\/anthropic\/v1\/messages$/,
};

const codec = new EventStreamCodec(toUtf8, fromUtf8);

/** One Bedrock event-stream frame. */
function frame(headers: Record<string, string>, payload: string): Uint8Array {
  return codec.encode({
    headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, { type: "string", value: v }])),
    body: fromUtf8(payload),
  });
}

const chunkFrame = (eventJson: string) =>
  frame(
    { ":event-type": "chunk", ":content-type": "application/json", ":message-type": "event" },
    JSON.stringify({ bytes: Buffer.from(eventJson).toString("base64") }),
  );

/** A provider-shaped error answer. */
function sendRefusal(kind: ProviderKind, res: http.ServerResponse, r: Refusal): void {
  if (kind === "bedrock") {
    res.writeHead(r.status, {
      "content-type": "application/json",
      "x-amzn-errortype": `${r.type}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
    });
    res.end(JSON.stringify({ message: r.message }));
  } else if (kind === "vertex") {
    res.writeHead(r.status, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { code: r.status, message: r.message, status: r.type } }));
  } else {
    res.writeHead(r.status, { "content-type": "application/json" });
    res.end(JSON.stringify({ type: "error", error: { type: r.type, message: r.message } }));
  }
}

/** The Bedrock refusal for what the Messages API answered with an error status. */
function bedrockOf(status: number, body: string): Refusal {
  let message = body;
  try {
    message = (JSON.parse(body) as { error?: { message?: string } }).error?.message ?? body;
  } catch {}
  if (status === 429) return { status, type: "ThrottlingException", message };
  if (status === 529 || status === 503) return { status: 503, type: "ServiceUnavailableException", message };
  if (status === 401 || status === 403) return { status: 403, type: "AccessDeniedException", message };
  if (status === 404) return { status, type: "ResourceNotFoundException", message };
  if (status >= 500) return { status: 500, type: "InternalServerException", message };
  return { status: 400, type: "ValidationException", message };
}

/** Whether the request carries the credential its provider requires. */
function authorised(kind: ProviderKind, h: http.IncomingHttpHeaders): boolean {
  const auth = String(h.authorization ?? "");
  if (kind === "bedrock")
    return auth.startsWith("AWS4-HMAC-SHA256 Credential=") || auth.startsWith("Bearer ");
  if (kind === "vertex") return auth.startsWith("Bearer ");
  return (typeof h["x-api-key"] === "string" && h["x-api-key"] !== "") || auth.startsWith("Bearer ");
}

export async function startFakeProvider(
  kind: ProviderKind,
  upstream: FakeAnthropic,
  options: FakeProviderOptions & { readonly requireAuth?: boolean } = {},
): Promise<FakeProvider> {
  const requests: ProviderRequest[] = [];
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void handle(req, res, Buffer.concat(chunks).toString("utf8")).catch(() => res.destroy());
    });
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse, raw: string): Promise<void> {
    const pathname = new URL(req.url ?? "/", "http://fake.invalid").pathname;
    const route = ROUTES[kind].exec(pathname);
    if (req.method !== "POST" || !route) {
      sendRefusal(kind, res, {
        status: 404,
        type: kind === "vertex" ? "NOT_FOUND" : "UnknownOperationException",
        message: `no route for ${req.method} ${pathname}`,
      });
      return;
    }
    const body = JSON.parse(raw) as Record<string, unknown>;
    const model = kind === "foundry" ? String(body.model) : decodeURIComponent(route[1] ?? "");
    const recorded = { path: pathname, headers: req.headers, body, model };
    requests.push(recorded);
    if (options.requireAuth !== false && !authorised(kind, req.headers)) {
      sendRefusal(kind, res, {
        status: kind === "foundry" ? 401 : 403,
        type:
          kind === "vertex"
            ? "UNAUTHENTICATED"
            : kind === "bedrock"
              ? "AccessDeniedException"
              : "authentication_error",
        message: "Missing Authentication Token",
      });
      return;
    }
    const refusal = options.refuse?.(recorded);
    if (refusal) {
      sendRefusal(kind, res, refusal);
      return;
    }
    const { anthropic_version: _v, anthropic_beta: betas, ...rest } = body;
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "anthropic-version": "2023-06-01",
      "x-api-key": "fake",
    };
    const beta = Array.isArray(betas) ? betas.join(",") : req.headers["anthropic-beta"];
    if (typeof beta === "string" && beta) headers["anthropic-beta"] = beta;
    const answer = await fetch(`${upstream.url}/v1/messages`, {
      method: "POST",
      headers,
      body: JSON.stringify({ ...rest, model, stream: true }),
    });
    if (answer.status !== 200 || !answer.body) {
      const text = await answer.text();
      if (kind === "bedrock") sendRefusal(kind, res, bedrockOf(answer.status, text));
      else {
        res.writeHead(answer.status, {
          "content-type": answer.headers.get("content-type") ?? "application/json",
        });
        res.end(text);
      }
      return;
    }
    if (kind !== "bedrock") {
      res.writeHead(200, { "content-type": "text/event-stream" });
      for await (const c of chunksOf(answer.body)) res.write(c);
      res.end();
      return;
    }
    res.writeHead(200, { "content-type": "application/vnd.amazon.eventstream" });
    let pending = "";
    const decoder = new TextDecoder();
    for await (const c of chunksOf(answer.body)) {
      pending += decoder.decode(c, { stream: true });
      let end = pending.indexOf("\n\n");
      while (end >= 0) {
        const data = /^data: (.*)$/m.exec(pending.slice(0, end))?.[1];
        pending = pending.slice(end + 2);
        if (data && !data.includes('"type":"ping"')) res.write(chunkFrame(data));
        end = pending.indexOf("\n\n");
      }
    }
    res.end();
  }

  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  return {
    url: kind === "vertex" ? `${base}/v1` : kind === "foundry" ? `${base}/anthropic/` : base,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A Bedrock in-stream exception frame (for tests that need one mid-stream). */
export function bedrockExceptionFrame(type: string, message: string): Uint8Array {
  return frame(
    { ":exception-type": type, ":content-type": "application/json", ":message-type": "exception" },
    JSON.stringify({ message }),
  );
}

async function* chunksOf(body: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    yield value;
  }
}
