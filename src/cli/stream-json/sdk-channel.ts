import { createInterface } from "node:readline";
import { Readable } from "node:stream";
import type { Content } from "../../invocation/run-types.js";
import { nodeCrypto } from "../../shared/node-builtins.js";
import { printable } from "../terminal/printable.js";

/**
 * The Agent SDK's pipe, one JSON object a line each way. What the SDK writes is sorted as it
 * arrives: answers to our requests settle them, its requests (`initialize`, `interrupt`,
 * `set_permission_mode`) go to `onRequest`, user messages wait in order for `nextUser`. A line
 * that is not JSON is said on stderr and skipped. When stdin ends every pending request fails
 * (a question no one can answer is a refusal, never a hang) and `nextUser` returns undefined.
 */
export interface SdkChannel {
  send(message: object): void;
  /** Asks the SDK (`can_use_tool`, `hook_callback`, `mcp_message`); rejects with its error text. */
  request(body: Readonly<Record<string, unknown>>, signal?: AbortSignal): Promise<Record<string, unknown>>;
  /** The next user message, or undefined once stdin has ended. */
  nextUser(): Promise<SdkUserMessage | undefined>;
  /** Whether stdin has ended. */
  readonly ended: boolean;
  /** Settles when stdin ends. */
  readonly closed: Promise<void>;
  /** Stops reading stdin (the session is over): an open pipe must not keep the process alive. */
  close(): void;
}

export interface SdkUserMessage {
  readonly type: "user";
  /** As the SDK's types say: `{ role: "user", content }`; anything else is answered with an error. */
  readonly message: unknown;
  readonly session_id?: string;
  readonly parent_tool_use_id?: string | null;
  /** The program's id for the message (claude-agent-acp's), echoed by `--replay-user-messages`. */
  readonly uuid?: string;
}

/**
 * A user message's content as the SDK's types allow it (`MessageParam`: a string, or a list of
 * content blocks, each an object with a `type`; a text block with its `text`), or why it is not
 * one: a single block object, a number, a missing `message` are errors the session answers, never
 * a crash.
 */
export function userContent(m: SdkUserMessage): Content | { error: string } {
  const bad = (why: string) => ({
    error: `a user message must be {"role":"user","content": a string or a list of content blocks}; ${why}`,
  });
  const message = m.message;
  if (typeof message !== "object" || message === null || Array.isArray(message))
    return bad(`its "message" is ${kindOf(message)}`);
  const { role, content } = message as { role?: unknown; content?: unknown };
  if (role !== undefined && role !== "user") return bad(`its role is ${JSON.stringify(role)}`);
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return bad(`its content is ${kindOf(content)}`);
  if (content.length === 0) return bad("its content is an empty list");
  for (const [i, block] of content.entries()) {
    if (typeof block !== "object" || block === null || typeof (block as { type?: unknown }).type !== "string")
      return bad(`block ${i} of its content is not an object with a "type"`);
    const b = block as { type: string; text?: unknown };
    if (b.type === "text" && typeof b.text !== "string") return bad(`text block ${i} has no "text" string`);
  }
  return content as Content;
}

function kindOf(x: unknown): string {
  if (x === undefined) return "missing";
  if (x === null) return "null";
  if (Array.isArray(x)) return "a list";
  if (typeof x === "object") return "one object (put a block in a list: [{...}])";
  return `a ${typeof x}`;
}

export interface SdkRequest {
  readonly request_id: string;
  readonly request: Readonly<Record<string, unknown>> & { readonly subtype: string };
}

export interface ChannelIo {
  readonly stdin: AsyncIterable<string | Buffer>;
  readonly stdout: { write(s: string): unknown };
  readonly stderr: { write(s: string): unknown };
}

type Pending = { resolve(r: Record<string, unknown>): void; reject(e: Error): void };

export function openChannel(io: ChannelIo, onRequest: (r: SdkRequest) => void): SdkChannel {
  const pending = new Map<string, Pending>();
  const users: SdkUserMessage[] = [];
  const waiting: ((m: SdkUserMessage | undefined) => void)[] = [];
  let ended = false;
  let closed: () => void = () => {};
  const whenClosed = new Promise<void>((resolve) => (closed = resolve));
  const send = (message: object) => io.stdout.write(`${JSON.stringify(message)}\n`);
  const end = () => {
    ended = true;
    for (const p of pending.values()) p.reject(new Error("the SDK closed its input before it answered"));
    pending.clear();
    for (const take of waiting.splice(0)) take(undefined);
    closed();
  };
  const take = (line: string) => {
    if (line.trim() === "") return;
    let m: Record<string, unknown>;
    try {
      m = JSON.parse(line);
      if (typeof m !== "object" || m === null) throw new Error("not an object");
    } catch (e) {
      io.stderr.write(
        `agentmd: a line of stdin is not a JSON message (${(e as Error).message}): ${printable(line.slice(0, 200))}\n`,
      );
      return;
    }
    if (m.type === "control_response") return settle(pending, m.response);
    if (m.type === "control_request") {
      const r = m as unknown as SdkRequest;
      if (typeof r.request?.subtype === "string") return onRequest(r);
    }
    // Every user message is queued, well-formed or not: each gets its answer (`userContent`).
    if (m.type === "user") {
      const w = waiting.shift();
      if (w) w(m as unknown as SdkUserMessage);
      else users.push(m as unknown as SdkUserMessage);
      return;
    }
    if (m.type === "control_cancel_request") return;
    io.stderr.write(
      `agentmd: a message of type '${printable(String(m.type))}' on stdin is not understood; skipped\n`,
    );
  };
  // process.stdin itself, so that closing it lets the process end while the SDK still holds the pipe.
  const source = io.stdin instanceof Readable ? io.stdin : Readable.from(io.stdin);
  const rl = createInterface({ input: source, crlfDelay: Number.POSITIVE_INFINITY });
  rl.on("line", take);
  rl.on("close", end);
  return {
    send,
    closed: whenClosed,
    close() {
      rl.close();
      source.destroy();
    },
    get ended() {
      return ended;
    },
    request(body, signal) {
      if (ended) return Promise.reject(new Error("the SDK closed its input"));
      const request_id = nodeCrypto().randomUUID();
      return new Promise((resolve, reject) => {
        const onAbort = () => {
          pending.delete(request_id);
          send({ type: "control_cancel_request", request_id });
          reject(new Error("interrupted"));
        };
        if (signal?.aborted) return onAbort();
        signal?.addEventListener("abort", onAbort, { once: true });
        const done = () => signal?.removeEventListener("abort", onAbort);
        pending.set(request_id, {
          resolve: (r) => {
            done();
            resolve(r);
          },
          reject: (e) => {
            done();
            reject(e);
          },
        });
        send({ type: "control_request", request_id, request: body });
      });
    },
    nextUser() {
      const next = users.shift();
      if (next) return Promise.resolve(next);
      if (ended) return Promise.resolve(undefined);
      return new Promise((resolve) => waiting.push(resolve));
    },
  };
}

function settle(pending: Map<string, Pending>, response: unknown): void {
  if (typeof response !== "object" || response === null) return;
  const r = response as { subtype?: string; request_id?: string; response?: unknown; error?: unknown };
  const p = r.request_id === undefined ? undefined : pending.get(r.request_id);
  if (!p || r.request_id === undefined) return;
  pending.delete(r.request_id);
  if (r.subtype === "error") p.reject(new Error(String(r.error ?? "the SDK answered with an error")));
  else
    p.resolve(
      typeof r.response === "object" && r.response !== null ? (r.response as Record<string, unknown>) : {},
    );
}

/** The answer to one of the SDK's requests. */
export function answer(channel: SdkChannel, requestId: string, response: object | Error): void {
  channel.send({
    type: "control_response",
    response:
      response instanceof Error
        ? { subtype: "error", request_id: requestId, error: response.message }
        : { subtype: "success", request_id: requestId, response },
  });
}
