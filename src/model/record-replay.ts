import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { AgentmdError } from "../shared/errors.js";
import { nodeCrypto } from "../shared/node-builtins.js";

/**
 * Record and replay of model traffic through the SDK client's `fetch` option. A recording is a
 * JSONL file, one exchange a line, appended as it happens: a digest and summary of the request,
 * and the full response stream. A replay answers from it without network or key; where the run
 * departs from the recording it answers with an error that says where and how.
 */
export interface RequestSummary {
  readonly digest: string;
  readonly model: string;
  readonly tools: readonly string[];
  /** Roles of the messages, and the tool_use / tool_result ids they hold, in order. */
  readonly shape: string;
  /** A digest of the tool_result texts alone (they may differ between machines). */
  readonly results: string;
  /** The first user message, when it is text: a replay run without a prompt uses it. */
  readonly prompt?: string;
}

export interface Exchange {
  readonly request: RequestSummary;
  readonly response: { readonly status: number; readonly contentType: string; readonly body: string };
}

type Json = Record<string, unknown>;
const sha = (s: string) => nodeCrypto().createHash("sha256").update(s).digest("hex").slice(0, 16);

export function summariseRequest(bodyText: string): RequestSummary {
  let body: Json = {};
  try {
    body = JSON.parse(bodyText) as Json;
  } catch {
    // summarised as empty; the digest still tells requests apart
  }
  const messages = Array.isArray(body.messages) ? (body.messages as Json[]) : [];
  const results: string[] = [];
  const shape = messages
    .map((m) => {
      const content = Array.isArray(m.content) ? (m.content as Json[]) : [];
      const parts = content.map((b) => {
        if (b.type === "tool_use") return `use:${String(b.name)}`;
        if (b.type === "tool_result") {
          results.push(JSON.stringify(b.content ?? ""));
          return `result${b.is_error ? "!" : ""}`;
        }
        return String(b.type);
      });
      return `${String(m.role)}(${parts.join(",") || "text"})`;
    })
    .join(" ");
  const tools = Array.isArray(body.tools) ? (body.tools as Json[]).map((t) => String(t.name)).sort() : [];
  const first = messages[0]?.content;
  const prompt =
    typeof first === "string"
      ? first
      : Array.isArray(first) && (first[0] as Json | undefined)?.type === "text"
        ? String((first[0] as Json).text)
        : undefined;
  return {
    digest: sha(bodyText),
    model: String(body.model ?? ""),
    tools,
    shape,
    results: sha(results.join("\n")),
    ...(prompt !== undefined && { prompt }),
  };
}

/** A `fetch` that passes requests on and appends each exchange to `file` as its stream ends. */
export function recordingFetch(
  file: string,
  inner: typeof globalThis.fetch = globalThis.fetch,
): typeof globalThis.fetch {
  mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  writeFileSync(file, "");
  return async (input, init) => {
    const bodyText = typeof init?.body === "string" ? init.body : "";
    const res = await inner(input, init);
    if (!res.body) return res;
    const contentType = res.headers.get("content-type") ?? "";
    // The exchange is written as the stream ends, before its reader sees the end: a run that has
    // finished reading a response has it recorded. A stream cut off by an abort is not kept.
    const decoder = new TextDecoder();
    let body = "";
    const keep = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        body += decoder.decode(chunk, { stream: true });
        controller.enqueue(chunk);
      },
      flush() {
        body += decoder.decode();
        const exchange: Exchange = {
          request: summariseRequest(bodyText),
          response: { status: res.status, contentType, body },
        };
        appendFileSync(file, `${JSON.stringify(exchange)}\n`);
      },
    });
    return new Response(res.body.pipeThrough(keep), {
      status: res.status,
      statusText: res.statusText,
      headers: res.headers,
    });
  };
}

export class ReplayFileError extends AgentmdError {}

/** Notes what the user typed (a prompt, or `/name args`), so that a replay can type it again. */
export function recordInput(file: string, input: unknown): void {
  appendFileSync(file, `${JSON.stringify({ input })}\n`);
}

/** The first input noted in a recording, if any. */
export function recordedInput(file: string): string | undefined {
  try {
    for (const line of readFileSync(file, "utf8").split("\n")) {
      if (!line.startsWith('{"input"')) continue;
      const v = (JSON.parse(line) as { input?: unknown }).input;
      if (typeof v === "string") return v;
    }
  } catch {
    // no recording, or not one: there is no input to replay
  }
  return undefined;
}

export function loadRecording(file: string): Exchange[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new ReplayFileError(
      `cannot read the recording ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`,
    );
  }
  const out: Exchange[] = [];
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "" || line.startsWith('{"input"')) return;
    try {
      const ex = JSON.parse(line) as Exchange;
      if (!ex.request || !ex.response || typeof ex.response.body !== "string")
        throw new Error("not an exchange");
      out.push(ex);
    } catch (e) {
      throw new ReplayFileError(`${file}:${i + 1}: not a recorded exchange (${(e as Error).message})`);
    }
  });
  return out;
}

/** The header of a replayed response that carries a notice for the run (ASCII text). */
export const REPLAY_NOTICE_HEADER = "agentmd-replay-notice";

/**
 * A `fetch` that answers each request with the next recorded exchange. A different model, tool set
 * or conversation shape is a departure, answered with an HTTP 400 whose message says where; tool
 * results that differ in text only (a file listing on another machine) are replayed anyway, with a
 * notice in the response's `REPLAY_NOTICE_HEADER` (the model tells it to the run that sent it).
 */
export function replayFetch(exchanges: readonly Exchange[]): typeof globalThis.fetch {
  let next = 0;
  return async (_input, init) => {
    const bodyText = typeof init?.body === "string" ? init.body : "";
    const got = summariseRequest(bodyText);
    // A fallback model's request follows the primary's first overload: the retries recorded
    // after it (failures of another model, which a replay does not retry) are passed over.
    while (
      exchanges[next] &&
      (exchanges[next] as Exchange).response.status >= 400 &&
      (exchanges[next] as Exchange).request.model !== got.model &&
      exchanges.slice(next).some((x) => x.request.model === got.model)
    )
      next++;
    const n = next + 1;
    const recorded = exchanges[next];
    if (!recorded)
      return departure(
        `the run departs from the recording at request ${n}: the recording holds only ${exchanges.length} model responses`,
      );
    const want = recorded.request;
    const differences: string[] = [];
    if (got.model !== want.model) differences.push(`model '${got.model}' instead of '${want.model}'`);
    const added = got.tools.filter((t) => !want.tools.includes(t));
    const removed = want.tools.filter((t) => !got.tools.includes(t));
    if (added.length || removed.length) {
      differences.push(
        `a different set of tools offered (${[...added.map((t) => `+${t}`), ...removed.map((t) => `-${t}`)].join(", ")})`,
      );
    }
    if (got.shape !== want.shape)
      differences.push(`a different conversation (recorded: ${want.shape}; now: ${got.shape})`);
    if (differences.length > 0)
      return departure(`the run departs from the recording at request ${n}: ${differences.join("; ")}`);
    const notice: Record<string, string> =
      got.results !== want.results
        ? {
            [REPLAY_NOTICE_HEADER]: `tool results before request ${n} differ from the recording; replaying it anyway`,
          }
        : {};
    next++;
    return new Response(recorded.response.body, {
      status: recorded.response.status,
      headers: {
        "content-type": recorded.response.contentType || "text/event-stream",
        "request-id": `replay-${n}`,
        ...notice,
      },
    });
  };
}

function departure(message: string): Response {
  return new Response(JSON.stringify({ type: "error", error: { type: "replay_departure", message } }), {
    status: 400,
    headers: { "content-type": "application/json" },
  });
}
